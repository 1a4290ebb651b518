// Who is acting, for audit trails (ledger freeze/unfreeze/close): --actor, else `cli:<os user>`.
import { userInfo } from 'node:os';

export function cliActor(flag: string | undefined): string {
  if (flag) return flag;
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
