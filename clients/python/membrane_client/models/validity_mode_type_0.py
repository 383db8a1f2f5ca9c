from enum import StrEnum


class ValidityModeType0(StrEnum):
    CONDITIONAL = "conditional"
    GLOBAL = "global"
    TIMEBOXED = "timeboxed"

    def __str__(self) -> str:
        return str(self.value)
