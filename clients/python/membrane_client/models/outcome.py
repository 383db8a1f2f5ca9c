from enum import StrEnum


class Outcome(StrEnum):
    FAILURE = "failure"
    PARTIAL = "partial"
    SUCCESS = "success"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
