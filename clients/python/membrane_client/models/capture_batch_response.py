from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capture_batch_item import CaptureBatchItem


T = TypeVar("T", bound="CaptureBatchResponse")


@_attrs_define
class CaptureBatchResponse:
    """
    Attributes:
        results (list[CaptureBatchItem]):
        created (int): Items captured.
        failed (int): Items refused; nothing of them was written.
    """

    results: list[CaptureBatchItem]
    created: int
    failed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.capture_batch_item import CaptureBatchItem  # noqa: PLC0415

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        created = self.created

        failed = self.failed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "results": results,
                "created": created,
                "failed": failed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capture_batch_item import CaptureBatchItem  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = CaptureBatchItem.from_dict(results_item_data)

            results.append(results_item)

        created = d.pop("created")

        failed = d.pop("failed")

        capture_batch_response = cls(
            results=results,
            created=created,
            failed=failed,
        )

        capture_batch_response.additional_properties = d
        return capture_batch_response

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
