/**
 * What a person calls a tool ("Tap", "Type text"), in the UI's language, from the catalogue's
 * `tools` area; a tool this console does not know yet is shown by its id. The one wording
 * lives with the approval sentence (main/contract/approval-wording.ts), which names tools too.
 */
export { toolLabel as toolName } from '../../../main/contract/approval-wording';
