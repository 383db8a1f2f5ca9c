from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Constraint")


@_attrs_define
class Constraint:
    """The original's Constraint.

    Attributes:
        type_ (str):
        key (str):
        value (Any | Unset):
        required (bool | Unset):  Default: False.
    """

    type_: str
    key: str
    value: Any | Unset = UNSET
    required: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        key = self.key

        value = self.value

        required = self.required

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "key": key,
            }
        )
        if value is not UNSET:
            field_dict["value"] = value
        if required is not UNSET:
            field_dict["required"] = required

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("type")

        key = d.pop("key")

        value = d.pop("value", UNSET)

        required = d.pop("required", UNSET)

        constraint = cls(
            type_=type_,
            key=key,
            value=value,
            required=required,
        )

        return constraint
