/** Public face of the comments domain for other domains: they reach it only through this file. */
export { createComment, listComments } from './comments.js';
export { commentContent } from './shapes.js';
export { addCommentOp, listCommentsOp } from './operations.js';
