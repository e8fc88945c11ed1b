import { call, type Bus } from '@notetaker/bus';
import { routes, TASKS_PAGE_MAX, type Task } from '@notetaker/contracts';

/**
 * Every task, optionally only scheduled or on-demand ones. The scheduler answers a page at a time
 * (a bus reply must stay small); REST and the web list want the whole list.
 */
export async function listAllTasks(bus: Bus, filter: { scheduled?: boolean } = {}): Promise<Task[]> {
  const all: Task[] = [];
  let after: string | undefined;
  do {
    const page = await call(bus, routes.tasks.list, { ...filter, after, limit: TASKS_PAGE_MAX });
    all.push(...page.tasks);
    after = page.next ?? undefined;
  } while (after !== undefined);
  return all;
}
