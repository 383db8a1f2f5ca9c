from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_call_status import ToolCallStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_call_args import ToolCallArgs


T = TypeVar("T", bound="ToolCall")


@_attrs_define
class ToolCall:
    """The original's ToolNode (id, tool, args, result, timestamp, depends_on) + status.

    Attributes:
        id (str):
        tool (str):
        args (ToolCallArgs | Unset):
        result (Any | Unset):
        timestamp (datetime.datetime | None | Unset):
        status (ToolCallStatus | Unset):  Default: ToolCallStatus.OK.
        depends_on (list[str] | Unset):
    """

    id: str
    tool: str
    args: ToolCallArgs | Unset = UNSET
    result: Any | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    status: ToolCallStatus | Unset = ToolCallStatus.OK
    depends_on: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_call_args import ToolCallArgs  # noqa: PLC0415

        id = self.id

        tool = self.tool

        args: dict[str, Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args.to_dict()

        result = self.result

        timestamp: None | str | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        elif isinstance(self.timestamp, datetime.datetime):
            timestamp = self.timestamp.isoformat()
        else:
            timestamp = self.timestamp

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        depends_on: list[str] | Unset = UNSET
        if not isinstance(self.depends_on, Unset):
            depends_on = self.depends_on

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "tool": tool,
            }
        )
        if args is not UNSET:
            field_dict["args"] = args
        if result is not UNSET:
            field_dict["result"] = result
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if status is not UNSET:
            field_dict["status"] = status
        if depends_on is not UNSET:
            field_dict["depends_on"] = depends_on

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call_args import ToolCallArgs  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        tool = d.pop("tool")

        _args = d.pop("args", UNSET)
        args: ToolCallArgs | Unset
        if isinstance(_args, Unset):
            args = UNSET
        else:
            args = ToolCallArgs.from_dict(_args)

        result = d.pop("result", UNSET)

        def _parse_timestamp(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                timestamp_type_0 = datetime.datetime.fromisoformat(data)

                return timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        timestamp = _parse_timestamp(d.pop("timestamp", UNSET))

        _status = d.pop("status", UNSET)
        status: ToolCallStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = ToolCallStatus(_status)

        depends_on = cast(list[str], d.pop("depends_on", UNSET))

        tool_call = cls(
            id=id,
            tool=tool,
            args=args,
            result=result,
            timestamp=timestamp,
            status=status,
            depends_on=depends_on,
        )

        return tool_call
