from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decay_curve import DecayCurve
from ..types import UNSET, Unset

T = TypeVar("T", bound="DecaySpec")


@_attrs_define
class DecaySpec:
    """
    Attributes:
        curve (DecayCurve | Unset):
        half_life_seconds (float | None | Unset):
        min_salience (float | Unset):  Default: 0.0.
        max_age_seconds (float | None | Unset):
        reinforcement_gain (float | None | Unset):
    """

    curve: DecayCurve | Unset = UNSET
    half_life_seconds: float | None | Unset = UNSET
    min_salience: float | Unset = 0.0
    max_age_seconds: float | None | Unset = UNSET
    reinforcement_gain: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        curve: str | Unset = UNSET
        if not isinstance(self.curve, Unset):
            curve = self.curve.value

        half_life_seconds: float | None | Unset
        if isinstance(self.half_life_seconds, Unset):
            half_life_seconds = UNSET
        else:
            half_life_seconds = self.half_life_seconds

        min_salience = self.min_salience

        max_age_seconds: float | None | Unset
        if isinstance(self.max_age_seconds, Unset):
            max_age_seconds = UNSET
        else:
            max_age_seconds = self.max_age_seconds

        reinforcement_gain: float | None | Unset
        if isinstance(self.reinforcement_gain, Unset):
            reinforcement_gain = UNSET
        else:
            reinforcement_gain = self.reinforcement_gain

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if curve is not UNSET:
            field_dict["curve"] = curve
        if half_life_seconds is not UNSET:
            field_dict["half_life_seconds"] = half_life_seconds
        if min_salience is not UNSET:
            field_dict["min_salience"] = min_salience
        if max_age_seconds is not UNSET:
            field_dict["max_age_seconds"] = max_age_seconds
        if reinforcement_gain is not UNSET:
            field_dict["reinforcement_gain"] = reinforcement_gain

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _curve = d.pop("curve", UNSET)
        curve: DecayCurve | Unset
        if isinstance(_curve, Unset):
            curve = UNSET
        else:
            curve = DecayCurve(_curve)

        def _parse_half_life_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        half_life_seconds = _parse_half_life_seconds(d.pop("half_life_seconds", UNSET))

        min_salience = d.pop("min_salience", UNSET)

        def _parse_max_age_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_age_seconds = _parse_max_age_seconds(d.pop("max_age_seconds", UNSET))

        def _parse_reinforcement_gain(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        reinforcement_gain = _parse_reinforcement_gain(d.pop("reinforcement_gain", UNSET))

        decay_spec = cls(
            curve=curve,
            half_life_seconds=half_life_seconds,
            min_salience=min_salience,
            max_age_seconds=max_age_seconds,
            reinforcement_gain=reinforcement_gain,
        )

        return decay_spec
