from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_output_ingest_args import ToolOutputIngestArgs
    from ..models.tool_output_ingest_context import ToolOutputIngestContext


T = TypeVar("T", bound="ToolOutputIngest")


@_attrs_define
class ToolOutputIngest:
    """The original's tool output (`tool_name` is accepted for `tool`), with the ids of
    the tool calls it depends on.

        Attributes:
            source (str): Who or what produced the experience (agent, tool).
            tool (str):
            scope (None | str | Unset):
            tags (list[str] | Unset):
            sensitivity (None | Sensitivity | Unset):
            timestamp (datetime.datetime | None | Unset):
            reason_to_remember (None | str | Unset):
            context (ToolOutputIngestContext | Unset):
            args (ToolOutputIngestArgs | Unset):
            result (Any | Unset):
            status (str | Unset):  Default: 'ok'.
            depends_on (list[str] | Unset):
            summary (None | str | Unset):
    """

    source: str
    tool: str
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: ToolOutputIngestContext | Unset = UNSET
    args: ToolOutputIngestArgs | Unset = UNSET
    result: Any | Unset = UNSET
    status: str | Unset = "ok"
    depends_on: list[str] | Unset = UNSET
    summary: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_output_ingest_args import ToolOutputIngestArgs  # noqa: PLC0415
        from ..models.tool_output_ingest_context import ToolOutputIngestContext  # noqa: PLC0415

        source = self.source

        tool = self.tool

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        sensitivity: None | str | Unset
        if isinstance(self.sensitivity, Unset):
            sensitivity = UNSET
        elif isinstance(self.sensitivity, Sensitivity):
            sensitivity = self.sensitivity.value
        else:
            sensitivity = self.sensitivity

        timestamp: None | str | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        elif isinstance(self.timestamp, datetime.datetime):
            timestamp = self.timestamp.isoformat()
        else:
            timestamp = self.timestamp

        reason_to_remember: None | str | Unset
        if isinstance(self.reason_to_remember, Unset):
            reason_to_remember = UNSET
        else:
            reason_to_remember = self.reason_to_remember

        context: dict[str, Any] | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context.to_dict()

        args: dict[str, Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args.to_dict()

        result = self.result

        status = self.status

        depends_on: list[str] | Unset = UNSET
        if not isinstance(self.depends_on, Unset):
            depends_on = self.depends_on

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
                "tool": tool,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope
        if tags is not UNSET:
            field_dict["tags"] = tags
        if sensitivity is not UNSET:
            field_dict["sensitivity"] = sensitivity
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if reason_to_remember is not UNSET:
            field_dict["reason_to_remember"] = reason_to_remember
        if context is not UNSET:
            field_dict["context"] = context
        if args is not UNSET:
            field_dict["args"] = args
        if result is not UNSET:
            field_dict["result"] = result
        if status is not UNSET:
            field_dict["status"] = status
        if depends_on is not UNSET:
            field_dict["depends_on"] = depends_on
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_output_ingest_args import ToolOutputIngestArgs  # noqa: PLC0415
        from ..models.tool_output_ingest_context import ToolOutputIngestContext  # noqa: PLC0415

        d = dict(src_dict)
        source = d.pop("source")

        tool = d.pop("tool")

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        def _parse_sensitivity(data: object) -> None | Sensitivity | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sensitivity_type_0 = Sensitivity(data)

                return sensitivity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Sensitivity | Unset, data)

        sensitivity = _parse_sensitivity(d.pop("sensitivity", UNSET))

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

        def _parse_reason_to_remember(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason_to_remember = _parse_reason_to_remember(d.pop("reason_to_remember", UNSET))

        _context = d.pop("context", UNSET)
        context: ToolOutputIngestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = ToolOutputIngestContext.from_dict(_context)

        _args = d.pop("args", UNSET)
        args: ToolOutputIngestArgs | Unset
        if isinstance(_args, Unset):
            args = UNSET
        else:
            args = ToolOutputIngestArgs.from_dict(_args)

        result = d.pop("result", UNSET)

        status = d.pop("status", UNSET)

        depends_on = cast(list[str], d.pop("depends_on", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        tool_output_ingest = cls(
            source=source,
            tool=tool,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            args=args,
            result=result,
            status=status,
            depends_on=depends_on,
            summary=summary,
        )

        return tool_output_ingest
