from enum import StrEnum


class Sensitivity(StrEnum):
    HIGH = "high"
    HYPER = "hyper"
    LOW = "low"
    MEDIUM = "medium"
    PUBLIC = "public"

    def __str__(self) -> str:
        return str(self.value)
