/**
 * A WAV file of 16-bit mono PCM: the one format every speech engine accepts (OpenAI, whisper.cpp,
 * faster-whisper), and no encoder to run.
 */

const HEADER_BYTES = 44;

export function encodeWav(pcm: Int16Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const wav = Buffer.alloc(HEADER_BYTES + pcm.length * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + pcm.length * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // bytes a second
  wav.writeUInt16LE(2, 32); // bytes a frame
  wav.writeUInt16LE(16, 34); // bits a sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(pcm.length * 2, 40);
  // Sample by sample, so the file is little-endian whatever the host's byte order.
  for (let i = 0; i < pcm.length; i++) wav.writeInt16LE(pcm[i], HEADER_BYTES + i * 2);
  return new Uint8Array(wav.buffer, wav.byteOffset, wav.length);
}
