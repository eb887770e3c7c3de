/** Public surface of the boards domain for other domains. */
export { canSeeBoard, loadVisibleBoard, listOrganizationBoards, assertBoardsExist } from './access.js';
