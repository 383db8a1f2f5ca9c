from enum import StrEnum


class RevisionStatusType0(StrEnum):
    ACTIVE = "active"
    CONTESTED = "contested"
    RETRACTED = "retracted"

    def __str__(self) -> str:
        return str(self.value)
