from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deletion_policy import DeletionPolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decay_out import DecayOut


T = TypeVar("T", bound="LifecycleOut")


@_attrs_define
class LifecycleOut:
    """
    Attributes:
        decay (DecayOut):
        last_reinforced_at (datetime.datetime):
        pinned (bool):
        deletion_policy (DeletionPolicy):
    """

    decay: DecayOut
    last_reinforced_at: datetime.datetime
    pinned: bool
    deletion_policy: DeletionPolicy
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.decay_out import DecayOut  # noqa: PLC0415

        decay = self.decay.to_dict()

        last_reinforced_at = self.last_reinforced_at.isoformat()

        pinned = self.pinned

        deletion_policy = self.deletion_policy.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decay": decay,
                "last_reinforced_at": last_reinforced_at,
                "pinned": pinned,
                "deletion_policy": deletion_policy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.decay_out import DecayOut  # noqa: PLC0415

        d = dict(src_dict)
        decay = DecayOut.from_dict(d.pop("decay"))

        last_reinforced_at = datetime.datetime.fromisoformat(d.pop("last_reinforced_at"))

        pinned = d.pop("pinned")

        deletion_policy = DeletionPolicy(d.pop("deletion_policy"))

        lifecycle_out = cls(
            decay=decay,
            last_reinforced_at=last_reinforced_at,
            pinned=pinned,
            deletion_policy=deletion_policy,
        )

        lifecycle_out.additional_properties = d
        return lifecycle_out

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
