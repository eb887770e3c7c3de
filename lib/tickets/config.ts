import { db } from '../db/service.js';
import type { CustomFieldItem, LabelItem, MilestoneItem, StatusItem, TicketTypeItem } from '../db/entities/index.js';

/** The organization's ticket vocabulary: statuses, types, labels and custom field definitions. */
export interface OrgConfig {
  statuses: StatusItem[];
  types: TicketTypeItem[];
  labels: LabelItem[];
  customFields: CustomFieldItem[];
  status(statusId: string): StatusItem | undefined;
  /** A live type (a type being deleted is unknown: no ticket may take it). */
  type(typeId: string): TicketTypeItem | undefined;
  /** The type a ticket shows: its own, or the live type a deleted one's tickets are moving to. */
  shownType(typeId: string): TicketTypeItem | undefined;
  /** What a filter by `typeIds` matches: those live types, and the deleted types whose tickets move to them. */
  typesMatching(typeIds: readonly string[]): Set<string>;
  label(labelId: string): LabelItem | undefined;
  customField(fieldId: string): CustomFieldItem | undefined;
  /** A live milestone (of any board: callers compare its boardId). */
  milestone(milestoneId: string): MilestoneItem | undefined;
  /** Position of a status in the organization's display order (for sorting tickets). */
  statusRank(statusId: string): number;
  defaultStatus(): StatusItem | undefined;
  defaultType(): TicketTypeItem | undefined;
}

/**
 * One consistent Query of the `orgConfig` collection (the five entities share the
 * organization's partition and a common sort-key prefix): statuses, types, labels, custom
 * fields and milestones. Ticket operations read it in parallel with the ticket or board they
 * work on.
 */
export async function loadOrgConfig(orgId: string): Promise<OrgConfig> {
  const { data } = await db().collections.orgConfig({ orgId }).go({ pages: 'all', consistent: true });
  return buildOrgConfig(data.status, data.ticketType, data.label, data.customField, data.milestone);
}

export function buildOrgConfig(statuses: StatusItem[], types: TicketTypeItem[], labels: LabelItem[], customFields: CustomFieldItem[], milestones: MilestoneItem[] = []): OrgConfig {
  const liveMilestones = new Map(milestones.filter((milestone) => !milestone.isDeleted).map((milestone) => [milestone.milestoneId, milestone]));
  const sortedStatuses = [...statuses].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name) || a.statusId.localeCompare(b.statusId));
  const byId = <T, K extends keyof T>(items: T[], key: K) => new Map(items.map((item) => [item[key] as unknown as string, item]));
  const statusById = byId(sortedStatuses, 'statusId');
  const liveTypes = types.filter((type) => type.replacedBy === undefined);
  const typeById = byId(liveTypes, 'typeId');
  const anyTypeById = byId(types, 'typeId');
  // A deleted type's replacement may itself have been deleted since: follow the chain (a few links at most).
  const shownType = (id: string): TicketTypeItem | undefined => {
    let type = anyTypeById.get(id);
    for (let link = 0; type?.replacedBy !== undefined && link < types.length; link += 1) type = anyTypeById.get(type.replacedBy);
    return type?.replacedBy === undefined ? type : undefined;
  };
  const matchingTypes = new Map<string, Set<string>>();
  const labelById = byId(labels, 'labelId');
  const fieldById = byId(customFields, 'fieldId');
  const rank = new Map(sortedStatuses.map((status, index) => [status.statusId, index]));
  return {
    statuses: sortedStatuses,
    types: liveTypes,
    labels,
    customFields,
    status: (id) => statusById.get(id),
    type: (id) => typeById.get(id),
    shownType,
    typesMatching: (ids) => {
      // Asked per ticket by a full read's filter: computed once per set of ids.
      const key = ids.join(',');
      let live = matchingTypes.get(key);
      if (!live) {
        live = new Set(ids.filter((id) => typeById.has(id)));
        for (const type of types) if (type.replacedBy !== undefined && live.has(shownType(type.typeId)?.typeId ?? '')) live.add(type.typeId);
        matchingTypes.set(key, live);
      }
      return live;
    },
    label: (id) => labelById.get(id),
    customField: (id) => fieldById.get(id),
    milestone: (id) => liveMilestones.get(id),
    statusRank: (id) => rank.get(id) ?? Number.MAX_SAFE_INTEGER,
    defaultStatus: () => sortedStatuses.find((status) => status.isDefault),
    defaultType: () => liveTypes.find((type) => type.isOrgDefault),
  };
}
