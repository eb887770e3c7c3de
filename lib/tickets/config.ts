import { db } from '../db/service.js';
import type { CustomFieldItem, LabelItem, MilestoneItem, StatusItem, TicketTypeItem } from '../db/entities/index.js';

/** The organization's ticket vocabulary: statuses, types, labels and custom field definitions. */
export interface OrgConfig {
  statuses: StatusItem[];
  types: TicketTypeItem[];
  labels: LabelItem[];
  customFields: CustomFieldItem[];
  status(statusId: string): StatusItem | undefined;
  type(typeId: string): TicketTypeItem | undefined;
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
  const typeById = byId(types, 'typeId');
  const labelById = byId(labels, 'labelId');
  const fieldById = byId(customFields, 'fieldId');
  const rank = new Map(sortedStatuses.map((status, index) => [status.statusId, index]));
  return {
    statuses: sortedStatuses,
    types,
    labels,
    customFields,
    status: (id) => statusById.get(id),
    type: (id) => typeById.get(id),
    label: (id) => labelById.get(id),
    customField: (id) => fieldById.get(id),
    milestone: (id) => liveMilestones.get(id),
    statusRank: (id) => rank.get(id) ?? Number.MAX_SAFE_INTEGER,
    defaultStatus: () => sortedStatuses.find((status) => status.isDefault),
    defaultType: () => types.find((type) => type.isOrgDefault),
  };
}
