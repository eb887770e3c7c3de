import type { EntityConfiguration } from 'electrodb';
import {
  Organization, OrganizationSlug, User, UserEmail, Credential, PermissionGroup, Board, BoardPrefix,
  Status, TicketType, Team, TeamMember, Customer, DomainEvent, Label, CustomField, Ticket, TicketKey, TicketFacet, FacetCount, TicketTerm, TicketTermCount, TicketSearchDoc, SearchPending, Dependency, Handoff, Comment,
  TimelineEntry, ColumnCount, ClaimSlots, ActivityDay, Notification, Suggestion, UniqueName, RateWindow, IdempotencyRecord, WebhookEndpoint,
  WebhookDelivery, WebhookAttempt, Integration, PullRequest, Pipeline, InboundDelivery, OAuthClient, OAuthGrant, OAuthToken,
  TimeEntry, Timer, BookingItem, AgentWeek, TimeSyncEndpoint, TicketTime, Milestone, Release, ReleaseTicket,
  WikiSpace, WikiFolder, WikiPage, WikiVersion, WikiChunk, WikiTerm, WikiSearchDoc, WikiSearchPending, Invitation, PasswordReset, OutboxMail, QuarantineEntry, SpendDay, SpendMonth,
} from './entities/index.js';

/**
 * Every entity of the single table, by the name `db().entities` exposes it under. Each entity
 * module exports a builder, not an entity: ElectroDB validates and normalizes a model when it
 * is constructed (milliseconds per entity), so a function builds only the entities it uses,
 * on first use (lib/db/service.ts), and nothing at import.
 */
export const entityBuilders = {
  organization: Organization,
  organizationSlug: OrganizationSlug,
  user: User,
  userEmail: UserEmail,
  credential: Credential,
  permissionGroup: PermissionGroup,
  board: Board,
  boardPrefix: BoardPrefix,
  status: Status,
  ticketType: TicketType,
  team: Team,
  teamMember: TeamMember,
  customer: Customer,
  event: DomainEvent,
  label: Label,
  customField: CustomField,
  ticket: Ticket,
  ticketKey: TicketKey,
  ticketFacet: TicketFacet,
  facetCount: FacetCount,
  ticketTerm: TicketTerm,
  ticketTermCount: TicketTermCount,
  ticketSearchDoc: TicketSearchDoc,
  searchPending: SearchPending,
  dependency: Dependency,
  handoff: Handoff,
  comment: Comment,
  timelineEntry: TimelineEntry,
  columnCount: ColumnCount,
  claimSlots: ClaimSlots,
  activityDay: ActivityDay,
  notification: Notification,
  suggestion: Suggestion,
  uniqueName: UniqueName,
  rateWindow: RateWindow,
  idempotencyRecord: IdempotencyRecord,
  webhookEndpoint: WebhookEndpoint,
  webhookDelivery: WebhookDelivery,
  webhookAttempt: WebhookAttempt,
  integration: Integration,
  pullRequest: PullRequest,
  pipeline: Pipeline,
  inboundDelivery: InboundDelivery,
  oauthClient: OAuthClient,
  oauthGrant: OAuthGrant,
  oauthToken: OAuthToken,
  timeEntry: TimeEntry,
  timer: Timer,
  bookingItem: BookingItem,
  agentWeek: AgentWeek,
  timeSyncEndpoint: TimeSyncEndpoint,
  ticketTime: TicketTime,
  milestone: Milestone,
  release: Release,
  releaseTicket: ReleaseTicket,
  wikiSpace: WikiSpace,
  wikiFolder: WikiFolder,
  wikiPage: WikiPage,
  wikiVersion: WikiVersion,
  wikiChunk: WikiChunk,
  wikiTerm: WikiTerm,
  wikiSearchDoc: WikiSearchDoc,
  wikiSearchPending: WikiSearchPending,
  invitation: Invitation,
  quarantineEntry: QuarantineEntry,
  spendDay: SpendDay,
  spendMonth: SpendMonth,
  passwordReset: PasswordReset,
  outboxMail: OutboxMail,
};

type Builders = typeof entityBuilders;
export type EntityName = keyof Builders;
/** The built entities, by name. */
export type Entities = { [Name in EntityName]: ReturnType<Builders[Name]> };

/** Builds every entity now (the table definition needs all their indexes). */
export function buildAllEntities(config?: EntityConfiguration): Entities {
  return Object.fromEntries(Object.entries(entityBuilders).map(([name, build]) => [name, build(config)])) as Entities;
}

export interface TableDefinition {
  partitionKey: string;
  sortKey: string;
  globalIndexes: { indexName: string; partitionKey: string; sortKey: string }[];
  ttlAttribute: string;
}

/**
 * The physical table, derived from the entities' index declarations so that the CDK stack,
 * the local runtime and the model cannot drift. Every GSI projects ALL attributes.
 */
export function tableDefinition(): TableDefinition {
  const gsis = new Map<string, { partitionKey: string; sortKey: string }>();
  let primary: { pk: string; sk: string } | undefined;
  for (const entity of Object.values(buildAllEntities())) {
    for (const index of Object.values(entity.schema.indexes) as IndexShape[]) {
      if (!index.index) {
        if (primary && (primary.pk !== index.pk.field || primary.sk !== index.sk?.field)) {
          throw new Error('All entities must share the primary key fields');
        }
        primary = { pk: index.pk.field, sk: index.sk?.field ?? 'sk' };
        continue;
      }
      const known = gsis.get(index.index);
      const shape = { partitionKey: index.pk.field, sortKey: index.sk?.field ?? `${index.index}sk` };
      if (known && (known.partitionKey !== shape.partitionKey || known.sortKey !== shape.sortKey)) {
        throw new Error(`Index ${index.index} is declared with different fields`);
      }
      gsis.set(index.index, shape);
    }
  }
  if (!primary) throw new Error('No primary index');
  // Reserved generic indexes, declared up front: CloudFormation adds only one GSI per
  // deployment, so the table is created with the ones later entities will use.
  for (const name of RESERVED_GSIS) {
    if (!gsis.has(name)) gsis.set(name, { partitionKey: `${name}pk`, sortKey: `${name}sk` });
  }
  return {
    partitionKey: primary.pk,
    sortKey: primary.sk,
    globalIndexes: [...gsis.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([indexName, keys]) => ({ indexName, ...keys })),
    ttlAttribute: 'ttl',
  };
}

const RESERVED_GSIS = ['gsi1', 'gsi2', 'gsi3', 'gsi4'];

interface IndexShape {
  index?: string;
  pk: { field: string };
  sk?: { field: string };
}
