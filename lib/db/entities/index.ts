export { DEFAULT_MAX_CONCURRENT_CLAIMS, Organization, OrganizationSlug, PLANS, type Plan, type OrganizationItem, type OrganizationSlugItem } from './organization.js';
export { User, UserEmail, ROLES, type Role, type UserItem } from './user.js';
export { Credential, CREDENTIAL_KINDS, type CredentialKind, type CredentialItem } from './credential.js';
export { PermissionGroup, GROUP_TYPES, type PermissionGroupItem } from './permission-group.js';
export { Board, BoardPrefix, type BoardItem } from './board.js';
export { Status, STATUS_CATEGORIES, type StatusCategory, type StatusItem } from './status.js';
export { TicketType, type TicketTypeItem } from './ticket-type.js';
export { Team, TeamMember, type TeamItem, type TeamMemberItem } from './team.js';
export { Customer, type CustomerItem } from './customer.js';
export { DomainEvent, type DomainEventItem } from './event.js';
export { Label, type LabelItem } from './label.js';
export { CustomField, CUSTOM_FIELD_TYPES, type CustomFieldType, type CustomFieldItem } from './custom-field.js';
export { ColumnCount, COLUMN_COUNT_SHARDS, type ColumnCountItem } from './column-count.js';
export { Dependency, Handoff, DEPENDENCY_DIRECTIONS, type DependencyItem, type HandoffItem } from './dependency.js';
export { Ticket, TicketKey, PRIORITIES, PRIORITY_RANK, isQueued, readyRankOf, IMPACT_LEVELS, RESOLUTION_TYPES, CLAIM_EXPIRY_SHARDS, claimShardOf, claimShards, NO_KEY, MAX_POSITION, positionKeyOf, type TicketItem } from './ticket.js';
export { FACET_COUNT_SHARDS, FacetCount, TicketFacet, type FacetCountItem, type TicketFacetItem } from './ticket-facet.js';
export { TicketTerm, TicketTermCount, termCountName, parseTermCountName, TicketSearchDoc, SearchPending, SEARCH_PENDING_SHARDS, searchShardOf, type TicketTermItem, type TicketSearchDocItem, type SearchPendingItem } from './ticket-search.js';
export { Comment, type CommentItem } from './comment.js';
export { TimelineEntry, TIMELINE_KINDS, type TimelineEntryItem } from './timeline.js';
export { ClaimSlots, type ClaimSlotsItem } from './claim-slots.js';
export { ActivityDay, ORG_SUBJECT, ORG_SUBJECT_SHARDS, isOrgSubject, type ActivityDayItem, type ActivityCounter } from './activity-day.js';
export { Notification, NOTIFICATION_TYPES, type NotificationItem } from './notification.js';
export { Suggestion, SUGGESTION_STATES, type SuggestionState, type SuggestionItem } from './suggestion.js';
export { UniqueName, UNIQUE_NAME_SCOPES, type UniqueNameScope, type UniqueNameItem } from './unique-name.js';
export { RateWindow, type RateWindowItem } from './rate-window.js';
export { IdempotencyRecord, type IdempotencyRecordItem } from './idempotency.js';
export { WebhookEndpoint, MAX_WEBHOOK_ENDPOINTS, type WebhookEndpointItem } from './webhook-endpoint.js';
export { WebhookDelivery, WebhookAttempt, DELIVERY_STATES, type DeliveryState, type WebhookDeliveryItem, type WebhookAttemptItem } from './webhook-delivery.js';
export {
  Integration, PullRequest, Pipeline, InboundDelivery, GIT_PROVIDERS, PR_STATES, PIPELINE_STATUSES, REVIEW_STATUSES,
  type GitProvider, type PrState, type PipelineStatus, type ReviewStatus, type IntegrationItem, type PullRequestItem, type PipelineItem,
} from './integration.js';
export { OAuthClient, OAuthGrant, OAuthToken, OAUTH_CLIENT_KINDS, OAUTH_TOKEN_KINDS, type OAuthClientItem, type OAuthGrantItem, type OAuthTokenItem } from './oauth.js';
export {
  TimeEntry, Timer, BookingItem, AgentWeek, TimeSyncEndpoint, TicketTime, TICKET_TIME_TOTAL, TIME_ENTRY_STATES, SYNC_STATUSES, TIME_ENTRY_SOURCES,
  type TimeEntryState, type SyncStatus, type TimeEntryItem, type TimerItem, type BookingItemItem, type AgentWeekItem, type TimeSyncEndpointItem, type TicketTimeItem,
} from './time.js';
export { Milestone, type MilestoneItem } from './milestone.js';
export { Release, ReleaseTicket, type ReleaseItem, type ReleaseTicketItem } from './release.js';
export { WikiSpace, WikiFolder, WikiPage, WikiVersion, WikiChunk, WIKI_MEMBER_MODES, WIKI_ROLES, versionKeyOf, type WikiMemberMode, type WikiRole, type WikiSpaceItem, type WikiFolderItem, type WikiPageItem, type WikiVersionItem, type WikiChunkItem } from './wiki.js';
export { WikiTerm, WikiSearchDoc, WikiSearchPending, DELETED_PAGE_VERSION, type WikiTermItem, type WikiSearchDocItem, type WikiSearchPendingItem } from './wiki-search.js';
export { Invitation, PasswordReset, OutboxMail, type InvitationItem, type PasswordResetItem, type OutboxMailItem } from './invitation.js';
export { QuarantineEntry, SpendDay, SpendMonth, SPEND_DIMENSIONS, SPEND_SHARDS, type QuarantineEntryItem, type SpendDayItem, type SpendMonthItem, type SpendDimension } from './fleet.js';
