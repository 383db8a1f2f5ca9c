from enum import StrEnum


class DeletionPolicy(StrEnum):
    AUTO_PRUNE = "auto_prune"
    MANUAL_ONLY = "manual_only"
    NEVER = "never"

    def __str__(self) -> str:
        return str(self.value)
