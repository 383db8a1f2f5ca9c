from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sensitivity import Sensitivity
from ..models.task_state import TaskState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.constraint import Constraint
    from ..models.working_state_ingest_context import WorkingStateIngestContext
    from ..models.working_state_ingest_state_data_type_0 import WorkingStateIngestStateDataType0
    from ..models.working_state_ingest_state_type_1 import WorkingStateIngestStateType1


T = TypeVar("T", bound="WorkingStateIngest")


@_attrs_define
class WorkingStateIngest:
    """`state` is the original's TaskState, or today's free-form object (stored as
    `state_data`); `active_constraints` are the original's constraint objects.

        Attributes:
            source (str): Who or what produced the experience (agent, tool).
            thread_id (str):
            scope (None | str | Unset):
            tags (list[str] | Unset):
            sensitivity (None | Sensitivity | Unset):
            timestamp (datetime.datetime | None | Unset):
            reason_to_remember (None | str | Unset):
            context (WorkingStateIngestContext | Unset):
            state (None | TaskState | Unset | WorkingStateIngestStateType1):
            state_data (None | Unset | WorkingStateIngestStateDataType0):
            active_constraints (list[Constraint] | Unset):
            constraints (list[Constraint | str] | Unset):
            next_actions (list[str] | Unset):
            open_questions (list[str] | Unset):
            context_summary (str | Unset):  Default: ''.
    """

    source: str
    thread_id: str
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: WorkingStateIngestContext | Unset = UNSET
    state: None | TaskState | Unset | WorkingStateIngestStateType1 = UNSET
    state_data: None | Unset | WorkingStateIngestStateDataType0 = UNSET
    active_constraints: list[Constraint] | Unset = UNSET
    constraints: list[Constraint | str] | Unset = UNSET
    next_actions: list[str] | Unset = UNSET
    open_questions: list[str] | Unset = UNSET
    context_summary: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        from ..models.constraint import Constraint  # noqa: PLC0415
        from ..models.working_state_ingest_context import WorkingStateIngestContext  # noqa: PLC0415
        from ..models.working_state_ingest_state_data_type_0 import WorkingStateIngestStateDataType0  # noqa: PLC0415
        from ..models.working_state_ingest_state_type_1 import WorkingStateIngestStateType1  # noqa: PLC0415

        source = self.source

        thread_id = self.thread_id

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

        state: dict[str, Any] | None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, TaskState):
            state = self.state.value
        elif isinstance(self.state, WorkingStateIngestStateType1):
            state = self.state.to_dict()
        else:
            state = self.state

        state_data: dict[str, Any] | None | Unset
        if isinstance(self.state_data, Unset):
            state_data = UNSET
        elif isinstance(self.state_data, WorkingStateIngestStateDataType0):
            state_data = self.state_data.to_dict()
        else:
            state_data = self.state_data

        active_constraints: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.active_constraints, Unset):
            active_constraints = []
            for active_constraints_item_data in self.active_constraints:
                active_constraints_item = active_constraints_item_data.to_dict()
                active_constraints.append(active_constraints_item)

        constraints: list[dict[str, Any] | str] | Unset = UNSET
        if not isinstance(self.constraints, Unset):
            constraints = []
            for constraints_item_data in self.constraints:
                constraints_item: dict[str, Any] | str
                if isinstance(constraints_item_data, Constraint):
                    constraints_item = constraints_item_data.to_dict()
                else:
                    constraints_item = constraints_item_data
                constraints.append(constraints_item)

        next_actions: list[str] | Unset = UNSET
        if not isinstance(self.next_actions, Unset):
            next_actions = self.next_actions

        open_questions: list[str] | Unset = UNSET
        if not isinstance(self.open_questions, Unset):
            open_questions = self.open_questions

        context_summary = self.context_summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
                "thread_id": thread_id,
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
        if state is not UNSET:
            field_dict["state"] = state
        if state_data is not UNSET:
            field_dict["state_data"] = state_data
        if active_constraints is not UNSET:
            field_dict["active_constraints"] = active_constraints
        if constraints is not UNSET:
            field_dict["constraints"] = constraints
        if next_actions is not UNSET:
            field_dict["next_actions"] = next_actions
        if open_questions is not UNSET:
            field_dict["open_questions"] = open_questions
        if context_summary is not UNSET:
            field_dict["context_summary"] = context_summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.constraint import Constraint  # noqa: PLC0415
        from ..models.working_state_ingest_context import WorkingStateIngestContext  # noqa: PLC0415
        from ..models.working_state_ingest_state_data_type_0 import WorkingStateIngestStateDataType0  # noqa: PLC0415
        from ..models.working_state_ingest_state_type_1 import WorkingStateIngestStateType1  # noqa: PLC0415

        d = dict(src_dict)
        source = d.pop("source")

        thread_id = d.pop("thread_id")

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
        context: WorkingStateIngestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = WorkingStateIngestContext.from_dict(_context)

        def _parse_state(data: object) -> None | TaskState | Unset | WorkingStateIngestStateType1:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = TaskState(data)

                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_type_1 = WorkingStateIngestStateType1.from_dict(data)

                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskState | Unset | WorkingStateIngestStateType1, data)

        state = _parse_state(d.pop("state", UNSET))

        def _parse_state_data(data: object) -> None | Unset | WorkingStateIngestStateDataType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_data_type_0 = WorkingStateIngestStateDataType0.from_dict(data)

                return state_data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WorkingStateIngestStateDataType0, data)

        state_data = _parse_state_data(d.pop("state_data", UNSET))

        _active_constraints = d.pop("active_constraints", UNSET)
        active_constraints: list[Constraint] | Unset = UNSET
        if _active_constraints is not UNSET:
            active_constraints = []
            for active_constraints_item_data in _active_constraints:
                active_constraints_item = Constraint.from_dict(active_constraints_item_data)

                active_constraints.append(active_constraints_item)

        _constraints = d.pop("constraints", UNSET)
        constraints: list[Constraint | str] | Unset = UNSET
        if _constraints is not UNSET:
            constraints = []
            for constraints_item_data in _constraints:

                def _parse_constraints_item(data: object) -> Constraint | str:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        constraints_item_type_1 = Constraint.from_dict(data)

                        return constraints_item_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    return cast(Constraint | str, data)

                constraints_item = _parse_constraints_item(constraints_item_data)

                constraints.append(constraints_item)

        next_actions = cast(list[str], d.pop("next_actions", UNSET))

        open_questions = cast(list[str], d.pop("open_questions", UNSET))

        context_summary = d.pop("context_summary", UNSET)

        working_state_ingest = cls(
            source=source,
            thread_id=thread_id,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            state=state,
            state_data=state_data,
            active_constraints=active_constraints,
            constraints=constraints,
            next_actions=next_actions,
            open_questions=open_questions,
            context_summary=context_summary,
        )

        return working_state_ingest
