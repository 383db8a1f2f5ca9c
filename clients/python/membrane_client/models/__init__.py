"""Contains all the data models used in inputs/outputs"""

from .audit_entry_out import AuditEntryOut
from .audit_entry_out_details import AuditEntryOutDetails
from .audit_line import AuditLine
from .audit_line_details import AuditLineDetails
from .audit_page import AuditPage
from .backfill_out import BackfillOut
from .capture_batch_item import CaptureBatchItem
from .capture_batch_request import CaptureBatchRequest
from .capture_batch_response import CaptureBatchResponse
from .capture_request import CaptureRequest
from .capture_request_context import CaptureRequestContext
from .capture_response import CaptureResponse
from .competence_payload import CompetencePayload
from .constraint import Constraint
from .contest_request import ContestRequest
from .contest_result import ContestResult
from .decay_curve import DecayCurve
from .decay_out import DecayOut
from .decay_spec import DecaySpec
from .deletion_policy import DeletionPolicy
from .embedding_info import EmbeddingInfo
from .embedding_line import EmbeddingLine
from .embedding_status import EmbeddingStatus
from .end_line import EndLine
from .end_line_counts import EndLineCounts
from .entity_payload import EntityPayload
from .entity_payload_identifiers import EntityPayloadIdentifiers
from .entity_term_line import EntityTermLine
from .episode_ingest import EpisodeIngest
from .episode_ingest_context import EpisodeIngestContext
from .episode_ingest_environment import EpisodeIngestEnvironment
from .episodic_payload import EpisodicPayload
from .episodic_payload_environment import EpisodicPayloadEnvironment
from .event_ingest import EventIngest
from .event_ingest_context import EventIngestContext
from .event_ingest_data import EventIngestData
from .evidence import Evidence
from .export_filters import ExportFilters
from .forget_request import ForgetRequest
from .forget_result import ForgetResult
from .fork_request import ForkRequest
from .fork_result import ForkResult
from .graph_node import GraphNode
from .graph_request import GraphRequest
from .graph_request_context_type_0 import GraphRequestContextType0
from .graph_response import GraphResponse
from .header_line import HeaderLine
from .health import Health
from .histogram_bucket import HistogramBucket
from .http_validation_error import HTTPValidationError
from .import_report import ImportReport
from .job_name import JobName
from .job_run_out import JobRunOut
from .job_run_out_counts import JobRunOutCounts
from .job_run_page import JobRunPage
from .kind_counts import KindCounts
from .lifecycle_out import LifecycleOut
from .lifecycle_spec import LifecycleSpec
from .memory_record_out import MemoryRecordOut
from .memory_record_out_interpretation import MemoryRecordOutInterpretation
from .memory_record_out_provenance import MemoryRecordOutProvenance
from .memory_type import MemoryType
from .merge_request import MergeRequest
from .merge_result import MergeResult
from .metrics_snapshot import MetricsSnapshot
from .metrics_snapshot_by_type import MetricsSnapshotByType
from .metrics_snapshot_records_by_type import MetricsSnapshotRecordsByType
from .metrics_snapshot_salience_distribution import MetricsSnapshotSalienceDistribution
from .observation_ingest import ObservationIngest
from .observation_ingest_context import ObservationIngestContext
from .observation_ingest_data import ObservationIngestData
from .outcome import Outcome
from .outcome_ingest import OutcomeIngest
from .outcome_ingest_details import OutcomeIngestDetails
from .penalize_request import PenalizeRequest
from .performance import Performance
from .pin_request import PinRequest
from .plan_edge import PlanEdge
from .plan_graph_payload import PlanGraphPayload
from .plan_graph_payload_constraints_type_1 import PlanGraphPayloadConstraintsType1
from .plan_graph_payload_inputs_schema_type_0 import PlanGraphPayloadInputsSchemaType0
from .plan_graph_payload_outputs_schema_type_0 import PlanGraphPayloadOutputsSchemaType0
from .plan_metrics import PlanMetrics
from .plan_node import PlanNode
from .plan_node_guards_type_0 import PlanNodeGuardsType0
from .plan_node_params import PlanNodeParams
from .problem import Problem
from .problem_errors_type_0_item import ProblemErrorsType0Item
from .provenance import Provenance
from .provenance_line import ProvenanceLine
from .provenance_source import ProvenanceSource
from .readiness import Readiness
from .recipe_step import RecipeStep
from .recipe_step_args import RecipeStepArgs
from .recipe_step_args_schema_type_0 import RecipeStepArgsSchemaType0
from .record_create import RecordCreate
from .record_create_interpretation import RecordCreateInterpretation
from .record_deleted import RecordDeleted
from .record_line import RecordLine
from .record_line_interpretation import RecordLineInterpretation
from .record_line_payload import RecordLinePayload
from .record_line_provenance import RecordLineProvenance
from .record_page import RecordPage
from .redacted_record_out import RedactedRecordOut
from .reinforce_request import ReinforceRequest
from .relation_line import RelationLine
from .relation_out import RelationOut
from .relation_spec import RelationSpec
from .relations_out import RelationsOut
from .replica_status import ReplicaStatus
from .retract_request import RetractRequest
from .retract_result import RetractResult
from .retrieve_request import RetrieveRequest
from .retrieve_request_context_type_0 import RetrieveRequestContextType0
from .retrieve_response import RetrieveResponse
from .retrieved_item import RetrievedItem
from .revision import Revision
from .revision_status_type_0 import RevisionStatusType0
from .salience_state import SalienceState
from .score_components import ScoreComponents
from .selection import Selection
from .selection_candidate import SelectionCandidate
from .semantic_payload import SemanticPayload
from .sensitivity import Sensitivity
from .source_kind import SourceKind
from .status import Status
from .supersede_request import SupersedeRequest
from .supersede_result import SupersedeResult
from .task_state import TaskState
from .timeline_entry import TimelineEntry
from .timeline_entry_data import TimelineEntryData
from .tool_call import ToolCall
from .tool_call_args import ToolCallArgs
from .tool_call_status import ToolCallStatus
from .tool_output_ingest import ToolOutputIngest
from .tool_output_ingest_args import ToolOutputIngestArgs
from .tool_output_ingest_context import ToolOutputIngestContext
from .trigger import Trigger
from .trigger_conditions import TriggerConditions
from .trust_narrowing_in import TrustNarrowingIn
from .validation_error import ValidationError
from .validation_error_context import ValidationErrorContext
from .validity import Validity
from .validity_conditions import ValidityConditions
from .validity_mode_type_0 import ValidityModeType0
from .working_payload import WorkingPayload
from .working_payload_state_data import WorkingPayloadStateData
from .working_state_ingest import WorkingStateIngest
from .working_state_ingest_context import WorkingStateIngestContext
from .working_state_ingest_state_data_type_0 import WorkingStateIngestStateDataType0
from .working_state_ingest_state_type_1 import WorkingStateIngestStateType1

__all__ = (
    "AuditEntryOut",
    "AuditEntryOutDetails",
    "AuditLine",
    "AuditLineDetails",
    "AuditPage",
    "BackfillOut",
    "CaptureBatchItem",
    "CaptureBatchRequest",
    "CaptureBatchResponse",
    "CaptureRequest",
    "CaptureRequestContext",
    "CaptureResponse",
    "CompetencePayload",
    "Constraint",
    "ContestRequest",
    "ContestResult",
    "DecayCurve",
    "DecayOut",
    "DecaySpec",
    "DeletionPolicy",
    "EmbeddingInfo",
    "EmbeddingLine",
    "EmbeddingStatus",
    "EndLine",
    "EndLineCounts",
    "EntityPayload",
    "EntityPayloadIdentifiers",
    "EntityTermLine",
    "EpisodeIngest",
    "EpisodeIngestContext",
    "EpisodeIngestEnvironment",
    "EpisodicPayload",
    "EpisodicPayloadEnvironment",
    "EventIngest",
    "EventIngestContext",
    "EventIngestData",
    "Evidence",
    "ExportFilters",
    "ForgetRequest",
    "ForgetResult",
    "ForkRequest",
    "ForkResult",
    "GraphNode",
    "GraphRequest",
    "GraphRequestContextType0",
    "GraphResponse",
    "HeaderLine",
    "Health",
    "HistogramBucket",
    "HTTPValidationError",
    "ImportReport",
    "JobName",
    "JobRunOut",
    "JobRunOutCounts",
    "JobRunPage",
    "KindCounts",
    "LifecycleOut",
    "LifecycleSpec",
    "MemoryRecordOut",
    "MemoryRecordOutInterpretation",
    "MemoryRecordOutProvenance",
    "MemoryType",
    "MergeRequest",
    "MergeResult",
    "MetricsSnapshot",
    "MetricsSnapshotByType",
    "MetricsSnapshotRecordsByType",
    "MetricsSnapshotSalienceDistribution",
    "ObservationIngest",
    "ObservationIngestContext",
    "ObservationIngestData",
    "Outcome",
    "OutcomeIngest",
    "OutcomeIngestDetails",
    "PenalizeRequest",
    "Performance",
    "PinRequest",
    "PlanEdge",
    "PlanGraphPayload",
    "PlanGraphPayloadConstraintsType1",
    "PlanGraphPayloadInputsSchemaType0",
    "PlanGraphPayloadOutputsSchemaType0",
    "PlanMetrics",
    "PlanNode",
    "PlanNodeGuardsType0",
    "PlanNodeParams",
    "Problem",
    "ProblemErrorsType0Item",
    "Provenance",
    "ProvenanceLine",
    "ProvenanceSource",
    "Readiness",
    "RecipeStep",
    "RecipeStepArgs",
    "RecipeStepArgsSchemaType0",
    "RecordCreate",
    "RecordCreateInterpretation",
    "RecordDeleted",
    "RecordLine",
    "RecordLineInterpretation",
    "RecordLinePayload",
    "RecordLineProvenance",
    "RecordPage",
    "RedactedRecordOut",
    "ReinforceRequest",
    "RelationLine",
    "RelationOut",
    "RelationsOut",
    "RelationSpec",
    "ReplicaStatus",
    "RetractRequest",
    "RetractResult",
    "RetrievedItem",
    "RetrieveRequest",
    "RetrieveRequestContextType0",
    "RetrieveResponse",
    "Revision",
    "RevisionStatusType0",
    "SalienceState",
    "ScoreComponents",
    "Selection",
    "SelectionCandidate",
    "SemanticPayload",
    "Sensitivity",
    "SourceKind",
    "Status",
    "SupersedeRequest",
    "SupersedeResult",
    "TaskState",
    "TimelineEntry",
    "TimelineEntryData",
    "ToolCall",
    "ToolCallArgs",
    "ToolCallStatus",
    "ToolOutputIngest",
    "ToolOutputIngestArgs",
    "ToolOutputIngestContext",
    "Trigger",
    "TriggerConditions",
    "TrustNarrowingIn",
    "ValidationError",
    "ValidationErrorContext",
    "Validity",
    "ValidityConditions",
    "ValidityModeType0",
    "WorkingPayload",
    "WorkingPayloadStateData",
    "WorkingStateIngest",
    "WorkingStateIngestContext",
    "WorkingStateIngestStateDataType0",
    "WorkingStateIngestStateType1",
)
