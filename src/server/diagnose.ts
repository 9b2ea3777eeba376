/**
 * Names the likely cause of a failed start from the server's log, so the user reads "GPU out of memory"
 * instead of scrolling a Python traceback. Patterns come from messages vLLM, PyTorch, huggingface_hub and
 * the docker daemon print; the first cause that matches the latest evidence wins.
 */
export type LikelyCause =
  | "gpu-out-of-memory"
  | "kv-cache-too-small"
  | "cuda-error"
  | "port-in-use"
  | "model-not-found"
  | "missing-hf-token"
  | "image-not-found"
  | "registry-unreachable"
  | "no-gpu-runtime";

interface CausePattern {
  readonly cause: LikelyCause;
  readonly pattern: RegExp;
  readonly advice: string;
}

const causePatterns: readonly CausePattern[] = [
  {
    cause: "missing-hf-token",
    pattern:
      /GatedRepoError|Cannot access gated repo|Access to model .* is restricted|401 Client Error|You are trying to access a gated repo|Invalid user token|must be authenticated/i,
    advice:
      "the model is gated or private: pass a Hugging Face token (server.env: [HF_TOKEN]) that has access to it",
  },
  {
    cause: "model-not-found",
    pattern:
      /RepositoryNotFoundError|Repository Not Found|is not a local folder and is not a valid model identifier|404 Client Error|RevisionNotFoundError|Invalid repository ID|does not appear to have a file named config\.json/i,
    advice: "the model (or its revision) was not found: check model.name, model.source and model.revision",
  },
  {
    cause: "kv-cache-too-small",
    pattern:
      /larger than the maximum number of tokens that can be stored in KV cache|KV cache is needed, which is larger than the available KV cache memory|No available memory for the cache blocks/i,
    advice:
      "the KV cache does not fit max_model_len: lower --max-model-len or raise --gpu-memory-utilization",
  },
  {
    cause: "gpu-out-of-memory",
    pattern:
      /CUDA out of memory|OutOfMemoryError|out of memory|Free memory on device .* is less than desired GPU memory utilization/i,
    advice:
      "GPU out of memory: another process may hold the GPU (check nvidia-smi), or lower --gpu-memory-utilization / --max-model-len",
  },
  {
    cause: "no-gpu-runtime",
    pattern:
      /could not select device driver .* with capabilities: \[\[gpu\]\]|nvidia-container-cli|unknown or invalid runtime name: nvidia/i,
    advice:
      "docker cannot give the container a GPU: install and configure the NVIDIA Container Toolkit on the runner",
  },
  {
    cause: "cuda-error",
    pattern:
      /CUDA error|CUDA driver version is insufficient|no CUDA-capable device|NVIDIA driver on your system is too old|cudaErrorNoDevice|NCCL error|Found no NVIDIA driver/i,
    advice:
      "a CUDA error: check the driver version against the image's CUDA version and that the GPU is visible",
  },
  {
    cause: "port-in-use",
    pattern: /address already in use|EADDRINUSE|port is already allocated|\[Errno 98\]/i,
    advice: "the port is already in use: stop the other server or pick another server.port",
  },
  {
    cause: "image-not-found",
    pattern:
      /pull access denied|manifest unknown|repository does not exist|not found: manifest|No such image/i,
    advice: "the image could not be pulled: check server.image (and docker login for a private registry)",
  },
  {
    // The daemon's own words when it cannot reach a registry (docker 20.10 to 28).
    cause: "registry-unreachable",
    pattern:
      /dial tcp .*(connection refused|i\/o timeout|no route to host|network is unreachable)|lookup .* no such host|TLS handshake timeout|Client\.Timeout exceeded while awaiting headers|request canceled while waiting for connection/i,
    advice:
      "the daemon cannot reach the image's registry (network, proxy or DNS): pull the image beforehand (docker pull, docker load), or use a registry mirror this machine reaches",
  },
];

export interface Diagnosis {
  readonly cause: LikelyCause;
  readonly advice: string;
  /** The log line that gave it away. */
  readonly evidence: string;
}

export function diagnoseLog(lines: readonly string[]): Diagnosis | undefined {
  // The latest lines carry the fatal error; earlier ones may hold recovered warnings.
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    for (const { cause, pattern, advice } of causePatterns) {
      if (pattern.test(line)) return { cause, advice, evidence: line.trim() };
    }
  }
  return undefined;
}
