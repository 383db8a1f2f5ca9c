from enum import StrEnum


class ToolCallStatus(StrEnum):
    ERROR = "error"
    OK = "ok"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
