from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.trigger_conditions import TriggerConditions


T = TypeVar("T", bound="Trigger")


@_attrs_define
class Trigger:
    """
    Attributes:
        signal (str):
        conditions (TriggerConditions | Unset):
    """

    signal: str
    conditions: TriggerConditions | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.trigger_conditions import TriggerConditions  # noqa: PLC0415

        signal = self.signal

        conditions: dict[str, Any] | Unset = UNSET
        if not isinstance(self.conditions, Unset):
            conditions = self.conditions.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signal": signal,
            }
        )
        if conditions is not UNSET:
            field_dict["conditions"] = conditions

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trigger_conditions import TriggerConditions  # noqa: PLC0415

        d = dict(src_dict)
        signal = d.pop("signal")

        _conditions = d.pop("conditions", UNSET)
        conditions: TriggerConditions | Unset
        if isinstance(_conditions, Unset):
            conditions = UNSET
        else:
            conditions = TriggerConditions.from_dict(_conditions)

        trigger = cls(
            signal=signal,
            conditions=conditions,
        )

        return trigger
