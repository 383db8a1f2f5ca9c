from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capture_request import CaptureRequest


T = TypeVar("T", bound="CaptureBatchRequest")


@_attrs_define
class CaptureBatchRequest:
    """Up to 1,000 captures, each exactly as POST /v1/capture takes it. Items are
    validated one by one: a bad item gets its own problem and does not spoil the others.

        Attributes:
            items (list[CaptureRequest]):
    """

    items: list[CaptureRequest]

    def to_dict(self) -> dict[str, Any]:
        from ..models.capture_request import CaptureRequest  # noqa: PLC0415

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "items": items,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capture_request import CaptureRequest  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = CaptureRequest.from_dict(items_item_data)

            items.append(items_item)

        capture_batch_request = cls(
            items=items,
        )

        return capture_batch_request
