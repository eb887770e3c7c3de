/** Public surface of the ticket-types domain for other domains (boards, tickets). */
export { loadOrganizationTicketTypes, presentTicketType, reassignTicketsOfType } from './ticket-types.js';
