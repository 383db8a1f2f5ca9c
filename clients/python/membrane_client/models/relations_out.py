from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.relation_out import RelationOut


T = TypeVar("T", bound="RelationsOut")


@_attrs_define
class RelationsOut:
    """
    Attributes:
        outgoing (list[RelationOut]):
        incoming (list[RelationOut]):
    """

    outgoing: list[RelationOut]
    incoming: list[RelationOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.relation_out import RelationOut  # noqa: PLC0415

        outgoing = []
        for outgoing_item_data in self.outgoing:
            outgoing_item = outgoing_item_data.to_dict()
            outgoing.append(outgoing_item)

        incoming = []
        for incoming_item_data in self.incoming:
            incoming_item = incoming_item_data.to_dict()
            incoming.append(incoming_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "outgoing": outgoing,
                "incoming": incoming,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.relation_out import RelationOut  # noqa: PLC0415

        d = dict(src_dict)
        outgoing = []
        _outgoing = d.pop("outgoing")
        for outgoing_item_data in _outgoing:
            outgoing_item = RelationOut.from_dict(outgoing_item_data)

            outgoing.append(outgoing_item)

        incoming = []
        _incoming = d.pop("incoming")
        for incoming_item_data in _incoming:
            incoming_item = RelationOut.from_dict(incoming_item_data)

            incoming.append(incoming_item)

        relations_out = cls(
            outgoing=outgoing,
            incoming=incoming,
        )

        relations_out.additional_properties = d
        return relations_out

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
