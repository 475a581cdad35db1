import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type Job = Schema<'Job'>;
export type JobStatus = Job['status'];
export type Take = Schema<'File'>;

/** The board's columns, in the lifecycle's order (docs/spec-decisions.md, "Recording jobs"). */
export const jobStatuses: JobStatus[] = ['CREATED', 'ASSIGNED', 'SUBMITTED', 'SELECTED', 'ACCEPTED', 'CANCELLED'];

/** Each state as the board names it. */
export const jobStatusNames: Record<JobStatus, string> = {
  CREATED: 'Created',
  ASSIGNED: 'With the artist',
  SUBMITTED: 'Takes in',
  SELECTED: 'Take selected',
  ACCEPTED: 'Accepted',
  CANCELLED: 'Cancelled',
};

/** The most jobs one column shows; the list route pages by 100 at most. */
const columnLimit = 100;

/** GET /job/list?status=: one column of the board, newest first. */
export function useJobsInState(status: JobStatus) {
  return useQuery({
    queryKey: ['jobs', { status }],
    queryFn: () => unwrap(api.GET('/job/list', { params: { query: { status, limit: columnLimit } } })),
  });
}

export function useJob(id: string) {
  return useQuery({
    queryKey: ['job', id],
    queryFn: () => unwrap(api.GET('/job/get', { params: { query: { id } } })),
  });
}

/** GET /job/files: the job's takes, read again every 2 s while one of them is still processing. */
export function useJobTakes(id: string) {
  return useQuery({
    queryKey: ['job-takes', id],
    queryFn: () => unwrap(api.GET('/job/files', { params: { query: { id } } })),
    refetchInterval: (query) => (query.state.data?.items.some((take) => take.status === 'processing') ? 2_000 : false),
  });
}

/** A step of the job (select a take, accept): the job as the step left it replaces the one shown, and the board reads again. */
function useJobStep<Input>(id: string, step: (input: Input) => Promise<Job>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: step,
    onSuccess: (job) => {
      queryClient.setQueryData(['job', id], job);
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
    },
  });
}

export const useSelectTake = (id: string) =>
  useJobStep(id, (fileId: string) => unwrap(api.POST('/richPush/select', { params: { query: { file_id: fileId } } })));

export const useAcceptJob = (id: string) => useJobStep(id, () => unwrap(api.POST('/job/accept', { params: { query: { id } } })));
