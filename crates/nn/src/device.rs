//! Device names from configs (`auto`, `cpu`, `cuda`, `cuda:N`) to libtorch devices, and the
//! CPU thread count ([`set_cpu_threads`]).

use tch::Device;

/// Sets the threads libtorch uses inside one operation on the CPU to `n` (`net.cpu_threads`,
/// `run.train_threads`); 0 means one per core, as those settings document (libtorch's own
/// default), whatever an earlier phase set.
///
/// A process-wide setting: call it where a phase begins (before self-play, the arena or
/// training builds its nets), never while another thread may be running a net. Building or
/// loading a net never calls it.
pub fn set_cpu_threads(n: usize) {
    let n = if n == 0 { std::thread::available_parallelism().map_or(1, usize::from) } else { n };
    tch::set_num_threads(i32::try_from(n).unwrap_or(i32::MAX));
}

/// Reads a device name. `auto` picks the first CUDA device when libtorch sees one.
///
/// # Errors
/// A message naming the bad device, or a CUDA device that is not there.
pub fn parse_device(name: &str) -> Result<Device, String> {
    let name = name.trim();
    match name {
        "auto" => Ok(Device::cuda_if_available()),
        "cpu" => Ok(Device::Cpu),
        _ => {
            let index = match name.strip_prefix("cuda") {
                Some("") => 0,
                Some(rest) => rest
                    .strip_prefix(':')
                    .and_then(|n| n.parse::<usize>().ok())
                    .ok_or_else(|| format!("bad device '{name}': expected auto, cpu, cuda or cuda:N"))?,
                None => return Err(format!("bad device '{name}': expected auto, cpu, cuda or cuda:N")),
            };
            let count = tch::Cuda::device_count();
            let count = usize::try_from(count).unwrap_or(0);
            if index >= count {
                let hint = if count == 0 {
                    " (no GPU, or a binary built without libtorch_cuda among its libraries: the default \
                     build leaves it out; scripts/build-device links it, see the README's \"On a GPU\")"
                } else {
                    ""
                };
                return Err(format!("device '{name}' asked for, but libtorch sees {count} CUDA device(s){hint}"));
            }
            Ok(Device::Cuda(index))
        }
    }
}

/// A short name for a device, as configs write it.
#[must_use]
pub fn device_name(device: Device) -> String {
    match device {
        Device::Cpu => "cpu".to_owned(),
        Device::Cuda(i) => format!("cuda:{i}"),
        other => format!("{other:?}").to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse_device("cpu"), Ok(Device::Cpu));
        assert!(parse_device("auto").is_ok());
        assert!(parse_device("gpu").expect_err("must fail").contains("bad device 'gpu'"));
        assert!(parse_device("cuda:x").expect_err("must fail").contains("bad device"));
        if !tch::Cuda::is_available() {
            assert!(parse_device("cuda:0").expect_err("must fail").contains("sees 0 CUDA"));
        }
        assert_eq!(device_name(Device::Cuda(1)), "cuda:1");
    }
}
