/** Projects (docs/api/reference.md#projects): the folders under the content root and their saved meetings. */
import { z } from 'zod';

export const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/**
 * The folder of the projects, relative to CONTENT_ROOT: one folder per project under it. With '/'
 * as separator, as every documentPath starts with it.
 */
export const DOCS_DIR = 'deployed-md-files/docs';

export const projectId = z.string({ error: 'project must be a string' }).regex(PROJECT_ID, {
  message: 'project must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$',
});

export const project = z.object({ id: z.string(), name: z.string(), hasMeetings: z.boolean() });
export type Project = z.infer<typeof project>;
export const projectsResponse = z.object({ projects: z.array(project) });

export const savedTranscriptStatus = z.enum(['in_progress', 'completed']);
export const projectMeeting = z.object({
  filename: z.string(),
  title: z.string(),
  date: z.string(),
  meetingId: z.string(),
  status: savedTranscriptStatus,
  participants: z.array(z.string()),
});
export type ProjectMeeting = z.infer<typeof projectMeeting>;
export const projectMeetingsResponse = z.object({ project: z.string(), meetings: z.array(projectMeeting) });
export const projectMeetingsParams = z.strictObject({
  projectId: z
    .string({ error: 'projectId is required and must be a string' })
    .regex(PROJECT_ID, 'projectId must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$')
    .describe('A project id, as list_projects returns it.'),
});
