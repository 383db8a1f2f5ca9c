from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decay_curve import DecayCurve
from ..types import UNSET, Unset

T = TypeVar("T", bound="SalienceState")


@_attrs_define
class SalienceState:
    """The decay state: current salience = f(base, t0, curve, half-life, floor, pinned, now).

    Attributes:
        base (float):
        t0 (float): UNIX epoch seconds, as stored.
        swept (float):
        curve (DecayCurve):
        half_life_s (float):
        min_salience (float):
        reinforcement_gain (float):
        pinned (bool):
        max_age_s (float | None | Unset):
    """

    base: float
    t0: float
    swept: float
    curve: DecayCurve
    half_life_s: float
    min_salience: float
    reinforcement_gain: float
    pinned: bool
    max_age_s: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        base = self.base

        t0 = self.t0

        swept = self.swept

        curve = self.curve.value

        half_life_s = self.half_life_s

        min_salience = self.min_salience

        reinforcement_gain = self.reinforcement_gain

        pinned = self.pinned

        max_age_s: float | None | Unset
        if isinstance(self.max_age_s, Unset):
            max_age_s = UNSET
        else:
            max_age_s = self.max_age_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "base": base,
                "t0": t0,
                "swept": swept,
                "curve": curve,
                "half_life_s": half_life_s,
                "min_salience": min_salience,
                "reinforcement_gain": reinforcement_gain,
                "pinned": pinned,
            }
        )
        if max_age_s is not UNSET:
            field_dict["max_age_s"] = max_age_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        base = d.pop("base")

        t0 = d.pop("t0")

        swept = d.pop("swept")

        curve = DecayCurve(d.pop("curve"))

        half_life_s = d.pop("half_life_s")

        min_salience = d.pop("min_salience")

        reinforcement_gain = d.pop("reinforcement_gain")

        pinned = d.pop("pinned")

        def _parse_max_age_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_age_s = _parse_max_age_s(d.pop("max_age_s", UNSET))

        salience_state = cls(
            base=base,
            t0=t0,
            swept=swept,
            curve=curve,
            half_life_s=half_life_s,
            min_salience=min_salience,
            reinforcement_gain=reinforcement_gain,
            pinned=pinned,
            max_age_s=max_age_s,
        )

        return salience_state
