from enum import StrEnum


class DecayCurve(StrEnum):
    EXPONENTIAL = "exponential"
    LINEAR = "linear"

    def __str__(self) -> str:
        return str(self.value)
