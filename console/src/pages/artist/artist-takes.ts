import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import type { TakeLike } from '../jobs/take-audio.tsx';

/** A take as the artist's link lists it: its file, state and listening URL. */
export interface ArtistTake extends TakeLike {
  fileId: string;
  fileName: string | null;
  /** Whether the account selected it: from then on no take is deleted. */
  selected: boolean;
  createdAt: string;
}

const takesPath = (token: string) => `/artist/${encodeURIComponent(token)}/takes`;

/** The API's answer as data, or its error as an ApiError (the link's routes take no cookie and no key: the token is in the path). */
async function answerOf<T>(response: Response): Promise<T> {
  const body: unknown = response.status === 204 ? undefined : await response.json();
  if (response.ok) return body as T;
  const error = (body as { error?: { code?: string; message?: string; requestId?: string } } | undefined)?.error;
  throw new ApiError(response.status, error?.code ?? 'unknown', error?.message ?? `${response.status} ${response.statusText}`, error?.requestId);
}

/** GET /artist/{token}/takes, read again every 2 s while one of them is still processing. */
export function useArtistTakes(token: string) {
  return useQuery({
    queryKey: ['artist-takes', token],
    queryFn: async () => answerOf<{ items: ArtistTake[]; maxTakes: number }>(await fetch(takesPath(token), { credentials: 'omit' })),
    refetchInterval: (query) => (query.state.data?.items.some((take) => take.status === 'processing') ? 2_000 : false),
  });
}

/** POST /artist/{token}/takes?fileName=, the audio's bytes as the body, sent as they are. */
export function useUploadTake(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ fileName, audio }: { fileName: string; audio: Blob }) =>
      answerOf<ArtistTake>(
        await fetch(`${takesPath(token)}?fileName=${encodeURIComponent(fileName)}`, {
          method: 'POST',
          credentials: 'omit',
          headers: { 'Content-Type': audio.type || 'application/octet-stream' },
          body: audio,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['artist-takes', token] }),
  });
}

/** DELETE /artist/{token}/takes/{fileId}: allowed until a take of the job is selected. */
export function useDeleteTake(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (fileId: string) =>
      answerOf<void>(await fetch(`${takesPath(token)}/${encodeURIComponent(fileId)}`, { method: 'DELETE', credentials: 'omit' })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['artist-takes', token] }),
  });
}
