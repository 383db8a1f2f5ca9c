from enum import StrEnum


class Status(StrEnum):
    ACTIVE = "active"
    CONTESTED = "contested"
    RETRACTED = "retracted"
    SUPERSEDED = "superseded"

    def __str__(self) -> str:
        return str(self.value)
