from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capture_response import CaptureResponse
    from ..models.problem import Problem


T = TypeVar("T", bound="CaptureBatchItem")


@_attrs_define
class CaptureBatchItem:
    """One item's outcome, in request order: its records (status 201), or its problem.

    Attributes:
        index (int):
        status (int): 201, or the status the item alone would have answered.
        result (CaptureResponse | None | Unset):
        problem (None | Problem | Unset):
    """

    index: int
    status: int
    result: CaptureResponse | None | Unset = UNSET
    problem: None | Problem | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.capture_response import CaptureResponse  # noqa: PLC0415
        from ..models.problem import Problem  # noqa: PLC0415

        index = self.index

        status = self.status

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, CaptureResponse):
            result = self.result.to_dict()
        else:
            result = self.result

        problem: dict[str, Any] | None | Unset
        if isinstance(self.problem, Unset):
            problem = UNSET
        elif isinstance(self.problem, Problem):
            problem = self.problem.to_dict()
        else:
            problem = self.problem

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "status": status,
            }
        )
        if result is not UNSET:
            field_dict["result"] = result
        if problem is not UNSET:
            field_dict["problem"] = problem

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capture_response import CaptureResponse  # noqa: PLC0415
        from ..models.problem import Problem  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        status = d.pop("status")

        def _parse_result(data: object) -> CaptureResponse | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = CaptureResponse.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CaptureResponse | None | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        def _parse_problem(data: object) -> None | Problem | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                problem_type_0 = Problem.from_dict(data)

                return problem_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Problem | Unset, data)

        problem = _parse_problem(d.pop("problem", UNSET))

        capture_batch_item = cls(
            index=index,
            status=status,
            result=result,
            problem=problem,
        )

        capture_batch_item.additional_properties = d
        return capture_batch_item

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
