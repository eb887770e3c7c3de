/** Public surface of the boards domain for other domains. */
export { teamsOf, type BoardTeam } from './access.js';
export { canSeeBoard, membershipGrantsAccess, visibleOrNotFound, loadVisibleBoard, listOrganizationBoards, nextBoardOf, assertBoardsExist, type BoardAccessSubject } from './access.js';
export { renameTeamOnBoards, removeTeamFromBoards, removeCustomerFromBoards } from './assignment-sync.js';
export { isStatusEnabledOnBoard, isTransitionAllowed, type TransitionRule } from './workflow.js';
export { listBoards } from './boards.js';
export { LOST_ASSIGNEES_JOB, userSeesBoard, type LostAssignees } from './membership.js';
export { listBoardsOp } from './operations.js';
