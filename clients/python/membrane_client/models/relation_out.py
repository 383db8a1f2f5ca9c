from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RelationOut")


@_attrs_define
class RelationOut:
    """
    Attributes:
        source_id (str):
        predicate (str):
        target_id (str):
        weight (float):
        created_at (datetime.datetime):
    """

    source_id: str
    predicate: str
    target_id: str
    weight: float
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        source_id = self.source_id

        predicate = self.predicate

        target_id = self.target_id

        weight = self.weight

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "source_id": source_id,
                "predicate": predicate,
                "target_id": target_id,
                "weight": weight,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source_id = d.pop("source_id")

        predicate = d.pop("predicate")

        target_id = d.pop("target_id")

        weight = d.pop("weight")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        relation_out = cls(
            source_id=source_id,
            predicate=predicate,
            target_id=target_id,
            weight=weight,
            created_at=created_at,
        )

        relation_out.additional_properties = d
        return relation_out

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
