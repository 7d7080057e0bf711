# shellcheck shell=bash
# Sourced by the bench scripts: the GPU part of a results stem (DATE-GPU-WHAT).
# gpu_tag prints GPU_TAG when it is set; otherwise the model of device 0 as nvidia-smi names it,
# lower case (NVIDIA H200 -> h200, NVIDIA H100 80GB HBM3 -> h100); a name without such a model
# token becomes its words joined by '-' (nvidia-geforce-rtx-4090); without nvidia-smi, "gpu".
# A figure from one GPU must never be filed under another's name, so nothing is assumed.
gpu_tag() {
  if [[ -n "${GPU_TAG:-}" ]]; then
    printf '%s\n' "$GPU_TAG"
    return
  fi
  local name="" model
  if command -v nvidia-smi > /dev/null; then
    name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null | head -n 1)
  fi
  model=$(grep -oE '(^|[^A-Za-z0-9])[A-Z]{1,3}[0-9]{2,4}[A-Za-z]?([^A-Za-z0-9]|$)' <<<"$name" |
          head -n 1 | tr -cd 'A-Za-z0-9')
  if [[ -n "$model" ]]; then
    printf '%s\n' "${model,,}"
  elif [[ -n "$name" ]]; then
    printf '%s\n' "$(tr -cs 'A-Za-z0-9' '-' <<<"${name,,}" | sed 's/^-*//; s/-*$//')"
  else
    printf 'gpu\n'
  fi
}
