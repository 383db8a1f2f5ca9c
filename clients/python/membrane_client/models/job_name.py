from enum import StrEnum


class JobName(StrEnum):
    CONSOLIDATION = "consolidation"
    DECAY = "decay"

    def __str__(self) -> str:
        return str(self.value)
