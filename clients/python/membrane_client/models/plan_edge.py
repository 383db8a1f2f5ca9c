from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanEdge")


@_attrs_define
class PlanEdge:
    """`kind` is the original's data / control (an edge sent without one is a control
    dependency); any other label (the earlier default `then`) is kept as given.

        Attributes:
            from_ (str):
            to (str):
            kind (str | Unset):  Default: 'control'.
    """

    from_: str
    to: str
    kind: str | Unset = "control"

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        kind = self.kind

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        kind = d.pop("kind", UNSET)

        plan_edge = cls(
            from_=from_,
            to=to,
            kind=kind,
        )

        return plan_edge
