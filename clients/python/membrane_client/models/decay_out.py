from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decay_curve import DecayCurve
from ..types import UNSET, Unset

T = TypeVar("T", bound="DecayOut")


@_attrs_define
class DecayOut:
    """
    Attributes:
        curve (DecayCurve):
        half_life_seconds (float):
        min_salience (float):
        max_age_seconds (float | None):
        reinforcement_gain (float):
    """

    curve: DecayCurve
    half_life_seconds: float
    min_salience: float
    max_age_seconds: float | None
    reinforcement_gain: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        curve = self.curve.value

        half_life_seconds = self.half_life_seconds

        min_salience = self.min_salience

        max_age_seconds: float | None
        max_age_seconds = self.max_age_seconds

        reinforcement_gain = self.reinforcement_gain

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "curve": curve,
                "half_life_seconds": half_life_seconds,
                "min_salience": min_salience,
                "max_age_seconds": max_age_seconds,
                "reinforcement_gain": reinforcement_gain,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        curve = DecayCurve(d.pop("curve"))

        half_life_seconds = d.pop("half_life_seconds")

        min_salience = d.pop("min_salience")

        def _parse_max_age_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_age_seconds = _parse_max_age_seconds(d.pop("max_age_seconds"))

        reinforcement_gain = d.pop("reinforcement_gain")

        decay_out = cls(
            curve=curve,
            half_life_seconds=half_life_seconds,
            min_salience=min_salience,
            max_age_seconds=max_age_seconds,
            reinforcement_gain=reinforcement_gain,
        )

        decay_out.additional_properties = d
        return decay_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
