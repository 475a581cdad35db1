import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

/** A take as the artist's link lists it: its file, state, listening URL, and whether the account selected it. */
export type ArtistTake = Schema<'ArtistTake'>;

// The link's routes take no cookie and no key: the token in the path is the artist's only credential, so these calls
// send no cookie (`credentials: 'omit'`), and a console session in the same browser lends them nothing.
const linkOnly = { credentials: 'omit' } as const;
const tokenPath = (token: string) => ({ path: { token } });

/** GET /artist/{token}/takes, read again every 2 s while one of them is still processing. */
export function useArtistTakes(token: string) {
  return useQuery({
    queryKey: ['artist-takes', token],
    queryFn: () => unwrap(api.GET('/artist/{token}/takes', { params: tokenPath(token), ...linkOnly })),
    refetchInterval: (query) => (query.state.data?.items.some((take) => take.status === 'processing') ? 2_000 : false),
  });
}

/** POST /artist/{token}/takes?fileName=, the audio's bytes as the body, sent as they are (never as JSON). */
export function useUploadTake(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ fileName, audio }: { fileName: string; audio: Blob }) =>
      unwrap(
        api.POST('/artist/{token}/takes', {
          params: { ...tokenPath(token), query: { fileName } },
          // The schema types a raw body as a string; the browser sends the Blob's bytes.
          body: audio as unknown as string,
          bodySerializer: (body: unknown) => body as Blob,
          headers: { 'Content-Type': audio.type || 'application/octet-stream' },
          ...linkOnly,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['artist-takes', token] }),
  });
}

/** DELETE /artist/{token}/takes/{fileId}: allowed until a take of the job is selected. */
export function useDeleteTake(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fileId: string) => unwrap(api.DELETE('/artist/{token}/takes/{fileId}', { params: { path: { token, fileId } }, ...linkOnly })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['artist-takes', token] }),
  });
}
