import { z } from 'zod';
import type { CountedSegment } from '../../domain/segments/get-segment.ts';
import { maxSegmentSample, type SegmentSample } from '../../domain/segments/sample-segment.ts';
import { segmentRulesSchema, segmentRulesShape } from '../../domain/segments/rules-schema.ts';
import type { Segment } from '../../persistence/entities/segment.ts';
import { deviceSchema, toDeviceResponse } from '../devices/schemas.ts';
import { pageOf, paginationQuery, timestamp, trimmedText } from '../shared-schemas.ts';

export const createSegmentBody = z
  .strictObject({ appId: z.uuid(), name: trimmedText(200), rules: segmentRulesSchema })
  .meta({ id: 'CreateSegment' });

export const updateSegmentBody = z
  .strictObject({ id: z.uuid(), name: trimmedText(200).optional(), rules: segmentRulesSchema.optional() })
  .meta({ id: 'UpdateSegment' });

export const segmentSchema = z
  .object({
    id: z.uuid().meta({ description: 'The segment id: the `filterId` of messages, jobs and A/B tests.' }),
    appId: z.uuid(),
    name: z.string(),
    rules: segmentRulesShape,
    deviceCount: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Subscribed devices the rules match now, counted live; null in lists (get the segment to count it).' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Segment' });

export const segmentIdQuery = z.object({ id: z.uuid() });
export const listSegmentsQuery = z.object({ appId: z.uuid().optional(), ...paginationQuery });
export const segmentPage = pageOf(segmentSchema).meta({ id: 'SegmentPage' });

export function toSegmentResponse(segment: Segment, deviceCount: number | null = null): z.infer<typeof segmentSchema> {
  return {
    id: segment.id,
    appId: segment.appId,
    name: segment.name,
    rules: segment.rules,
    deviceCount,
    createdAt: segment.createdAt.toISOString(),
    updatedAt: segment.updatedAt.toISOString(),
  };
}

export const toCountedSegmentResponse = ({ segment, deviceCount }: CountedSegment) => toSegmentResponse(segment, deviceCount);

export const sampleSegmentQuery = z.object({
  id: z.uuid(),
  limit: z.coerce.number().int().min(1).max(maxSegmentSample).default(10).meta({ description: `Devices in the sample, 1 to ${maxSegmentSample} (default 10).` }),
});

export const segmentSampleSchema = z
  .object({
    id: z.uuid(),
    deviceCount: z.number().int().meta({ description: 'Subscribed devices the rules match now, counted live.' }),
    items: z.array(deviceSchema).meta({ description: 'The first devices the rules match, by device id: at most `limit`.' }),
  })
  .meta({ id: 'SegmentSample' });

export const toSegmentSampleResponse = ({ segment, deviceCount, devices }: SegmentSample): z.infer<typeof segmentSampleSchema> => ({
  id: segment.id,
  deviceCount,
  items: devices.map(toDeviceResponse),
});
