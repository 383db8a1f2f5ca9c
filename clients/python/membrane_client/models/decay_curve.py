from enum import StrEnum


class DecayCurve(StrEnum):
    CUSTOM = "custom"
    EXPONENTIAL = "exponential"
    LINEAR = "linear"

    def __str__(self) -> str:
        return str(self.value)
