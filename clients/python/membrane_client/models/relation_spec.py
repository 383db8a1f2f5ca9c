from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RelationSpec")


@_attrs_define
class RelationSpec:
    """
    Attributes:
        predicate (str):
        target_id (str):
        weight (float | Unset):  Default: 1.0.
    """

    predicate: str
    target_id: str
    weight: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        predicate = self.predicate

        target_id = self.target_id

        weight = self.weight

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "predicate": predicate,
                "target_id": target_id,
            }
        )
        if weight is not UNSET:
            field_dict["weight"] = weight

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        predicate = d.pop("predicate")

        target_id = d.pop("target_id")

        weight = d.pop("weight", UNSET)

        relation_spec = cls(
            predicate=predicate,
            target_id=target_id,
            weight=weight,
        )

        return relation_spec
