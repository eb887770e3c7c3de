/** Public surface of the teams domain for other domains (MCP tools, boards). */
export {
  listTeams, getTeam, createTeam, updateTeam, deleteTeam, addTeamMember, removeTeamMember, presentTeam,
  type CreateTeamInput,
} from './teams.js';
