import type { Tracer } from '@opentelemetry/api';
import type { ImageBackend } from '../../backends/image-generation.js';
import type { SpeechBackend, SpeechRequest } from '../../backends/speech.js';
import type { TranscriptionBackend } from '../../backends/transcription.js';
import { inUpstreamSpan, startUpstreamSpan } from './upstream-span.js';

// The GenAI conventions name chat and embeddings operations; media calls are `generate_content`
// with `gen_ai.output.type` saying what comes back (image, speech, text for a transcript).

/** An image backend whose every render is a client span (tracing on only), its `traceparent` sent upstream. */
export function traceImageBackend(backend: ImageBackend, tracer: Tracer, model: string): ImageBackend {
  return {
    name: backend.name,
    costMicros: (image) => backend.costMicros(image),
    render: (request) =>
      inUpstreamSpan(
        tracer,
        {
          operation: 'generate_content',
          backend: backend.name,
          model,
          attributes: {
            'gen_ai.output.type': 'image',
            'svc.image.size': `${request.width}x${request.height}`,
            'svc.image.references': request.references.length,
          },
        },
        (traceHeaders) => backend.render({ ...request, traceHeaders }),
        (image) => ({ 'svc.cost_micro_usd': image.costMicros, 'svc.image.bytes': image.bytes.length }),
      ),
  };
}

/** A speech backend whose every synthesis is a client span over the whole stream (tracing on only). */
export function traceSpeechBackend(backend: SpeechBackend, tracer: Tracer, model: string): SpeechBackend {
  return {
    name: backend.name,
    ...(backend.appliesSpeed !== undefined && { appliesSpeed: backend.appliesSpeed }),
    synthesize: (request) => tracedSpeech(backend, tracer, model, request),
  };
}

async function* tracedSpeech(
  backend: SpeechBackend,
  tracer: Tracer,
  model: string,
  request: SpeechRequest,
): AsyncGenerator<Buffer, void, undefined> {
  const { span, traceHeaders, fail } = startUpstreamSpan(tracer, {
    operation: 'generate_content',
    backend: backend.name,
    model,
    attributes: { 'gen_ai.output.type': 'speech', 'svc.speech.characters': request.text.length },
  });
  let bytes = 0;
  try {
    for await (const chunk of backend.synthesize({ ...request, traceHeaders })) {
      bytes += chunk.length;
      yield chunk;
    }
  } catch (err) {
    fail(err);
    throw err;
  } finally {
    span.setAttribute('svc.audio.pcm_bytes', bytes);
    span.end();
  }
}

/** A transcription backend whose every call is a client span (tracing on only), its `traceparent` sent upstream. */
export function traceTranscriptionBackend(
  backend: TranscriptionBackend,
  tracer: Tracer,
  model: string,
): TranscriptionBackend {
  return {
    name: backend.name,
    transcribe: (request) =>
      inUpstreamSpan(
        tracer,
        {
          operation: 'generate_content',
          backend: backend.name,
          model,
          attributes: { 'gen_ai.output.type': 'text', 'svc.audio.format': request.format },
        },
        (traceHeaders) => backend.transcribe({ ...request, traceHeaders }),
        (transcript) => ({ 'svc.audio.duration_s': transcript.durationSeconds }),
      ),
  };
}
