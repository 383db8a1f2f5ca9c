from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deletion_policy import DeletionPolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decay_spec import DecaySpec


T = TypeVar("T", bound="LifecycleSpec")


@_attrs_define
class LifecycleSpec:
    """
    Attributes:
        decay (DecaySpec | Unset):
        pinned (bool | Unset):  Default: False.
        deletion_policy (DeletionPolicy | None | Unset):
    """

    decay: DecaySpec | Unset = UNSET
    pinned: bool | Unset = False
    deletion_policy: DeletionPolicy | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.decay_spec import DecaySpec  # noqa: PLC0415

        decay: dict[str, Any] | Unset = UNSET
        if not isinstance(self.decay, Unset):
            decay = self.decay.to_dict()

        pinned = self.pinned

        deletion_policy: None | str | Unset
        if isinstance(self.deletion_policy, Unset):
            deletion_policy = UNSET
        elif isinstance(self.deletion_policy, DeletionPolicy):
            deletion_policy = self.deletion_policy.value
        else:
            deletion_policy = self.deletion_policy

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if decay is not UNSET:
            field_dict["decay"] = decay
        if pinned is not UNSET:
            field_dict["pinned"] = pinned
        if deletion_policy is not UNSET:
            field_dict["deletion_policy"] = deletion_policy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.decay_spec import DecaySpec  # noqa: PLC0415

        d = dict(src_dict)
        _decay = d.pop("decay", UNSET)
        decay: DecaySpec | Unset
        if isinstance(_decay, Unset):
            decay = UNSET
        else:
            decay = DecaySpec.from_dict(_decay)

        pinned = d.pop("pinned", UNSET)

        def _parse_deletion_policy(data: object) -> DeletionPolicy | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deletion_policy_type_0 = DeletionPolicy(data)

                return deletion_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeletionPolicy | None | Unset, data)

        deletion_policy = _parse_deletion_policy(d.pop("deletion_policy", UNSET))

        lifecycle_spec = cls(
            decay=decay,
            pinned=pinned,
            deletion_policy=deletion_policy,
        )

        return lifecycle_spec
