/** tray area: English and Simplified Chinese. */
import { defineMessages } from '../define';

export default defineMessages(
  {
  },
  {
  },
);
