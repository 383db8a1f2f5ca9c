from enum import StrEnum


class TaskState(StrEnum):
    BLOCKED = "blocked"
    DONE = "done"
    EXECUTING = "executing"
    PLANNING = "planning"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
