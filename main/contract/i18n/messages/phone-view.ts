/**
 * Phone view area (renderer/src/features/phone-view/): English and Simplified Chinese.
 * Add each key to both objects; the zh-CN object must have exactly the English keys.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
  },
  {
  },
);
