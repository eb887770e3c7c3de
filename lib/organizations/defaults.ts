import type { StatusCategory } from '../db/entities/index.js';

/** Statuses every new organization starts with (README.md, First five minutes). */
export const DEFAULT_STATUSES: {
  key: string;
  name: string;
  color: string;
  category: StatusCategory;
  isDefault?: boolean;
  isFinal?: boolean;
  isMandatory?: boolean;
}[] = [
  { key: 'BACKLOG', name: 'Backlog', color: '#9E9E9E', category: 'PLANNING', isDefault: true },
  { key: 'TODO', name: 'To Do', color: '#607D8B', category: 'PLANNING' },
  { key: 'IN_PROGRESS', name: 'In Progress', color: '#1976D2', category: 'ACTIVE' },
  { key: 'IN_REVIEW', name: 'In Review', color: '#7B1FA2', category: 'ACTIVE' },
  { key: 'BLOCKED', name: 'Blocked', color: '#D32F2F', category: 'ACTIVE' },
  { key: 'DONE', name: 'Done', color: '#388E3C', category: 'FINAL', isFinal: true, isMandatory: true },
];

export const DEFAULT_TICKET_TYPE = { name: 'Task', color: '#1976D2', description: 'A unit of work' };
