// keel/messages: 422 field messages from catalogues of plain data, chosen by Accept-Language or
// fixed per app; English built in (docs/features/messages.md).
export { messages, type MessagesOptions } from "./messages.js";
export { englishMessages, type MessageKey } from "./english.js";
export type { MessageCatalogue } from "./catalogue.js";
