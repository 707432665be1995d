//! The net's shape and where it runs: [`NetConfig`], one serde struct read from the `[net]`
//! table of a preset. The architecture fields are stored in every checkpoint, and a checkpoint is
//! only loaded into a net with the same architecture.

use serde::{Deserialize, Serialize};

/// Architecture and placement of the policy-value net.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetConfig {
    /// Residual blocks in the trunk. Default 6, range 1..=40.
    pub blocks: usize,
    /// Channels of every trunk convolution. Default 64, range 8..=512.
    pub channels: usize,
    /// Squeeze-and-excitation in each block: the channel count of its bottleneck as a divisor
    /// of `channels` (0 = off). Default 0; 4 or 8 are usual when on.
    pub se_ratio: usize,
    /// Channels of the 1x1 convolution that opens the policy head. Default 8, range 1..=64.
    pub policy_channels: usize,
    /// Width of the hidden layer of the value head. Default 64, range 8..=512.
    pub value_hidden: usize,
    /// An auxiliary head that predicts the game's final material difference (side to move's
    /// view, [`encode::Encode::material_target`]) from the value head's hidden layer, trained
    /// beside the value and ignored by the search. Default false.
    pub material_head: bool,
    /// How much of the material head's prediction the net's played value carries: in play (the
    /// search, self-play, the arena, the engines) the value is `v + material_utility * m`,
    /// clamped to [-1, 1], where `v` is the value head's output and `m` the material head's
    /// (KataGo's score utility, with the final material as xiangqi's and draughts' score).
    /// Training still fits each head to its own target. Needs `material_head`; part of the
    /// architecture (a checkpoint plays with the utility it trained with). Default 0 (the value
    /// alone), range [0, 1].
    pub material_utility: f32,
    /// Read the encoding's feature planes too ([`encode::EncodingInfo::input`]; xiangqi: the
    /// squares each side controls). Without, the net reads the planes before them and records
    /// that layout's id, as nets made before the feature planes did. A game whose encoding has
    /// none refuses it. Default false.
    pub feature_planes: bool,
    /// Where the net runs: `auto` (the first CUDA device if there is one, else the CPU), `cpu`,
    /// `cuda` or `cuda:N`. Default `auto`.
    pub device: String,
    /// Half precision for inference on CUDA (ignored on the CPU). Default false.
    pub half: bool,
    /// Threads libtorch uses inside one operation on the CPU (0 = libtorch's default, one per
    /// core). Default 0. A process-wide setting, applied by the binary with
    /// [`crate::set_cpu_threads`] where a phase begins, not by building a net.
    pub cpu_threads: usize,
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig {
            blocks: 6,
            channels: 64,
            se_ratio: 0,
            policy_channels: 8,
            value_hidden: 64,
            material_head: false,
            material_utility: 0.0,
            feature_planes: false,
            device: "auto".to_owned(),
            half: false,
            cpu_threads: 0,
        }
    }
}

impl NetConfig {
    /// A very small net for tests and the tiny presets: 2 blocks of 32 channels.
    #[must_use]
    pub fn tiny() -> NetConfig {
        NetConfig { blocks: 2, channels: 32, policy_channels: 4, value_hidden: 32, ..NetConfig::default() }
    }

    /// The architecture as stored in a checkpoint's metadata: the fields that decide the shape of
    /// the weights and what the value output means, nothing about placement. `material_head=1`,
    /// `material_utility=X` and `feature_planes=1` are written only when on, so nets without
    /// them keep the description they had before any existed.
    #[must_use]
    pub fn architecture(&self) -> String {
        let material = if self.material_head { " material_head=1" } else { "" };
        let utility = if self.material_utility > 0.0 {
            format!(" material_utility={}", self.material_utility)
        } else {
            String::new()
        };
        let features = if self.feature_planes { " feature_planes=1" } else { "" };
        format!(
            "resnet blocks={} channels={} se_ratio={} policy_channels={} value_hidden={}{material}{utility}{features}",
            self.blocks, self.channels, self.se_ratio, self.policy_channels, self.value_hidden
        )
    }

    /// This config with the architecture fields read from `architecture` (as
    /// [`NetConfig::architecture`] writes it), keeping the placement (device, half, threads).
    ///
    /// # Errors
    /// A message naming the part that does not read.
    pub fn with_architecture(&self, architecture: &str) -> Result<NetConfig, String> {
        let mut words = architecture.split_whitespace();
        if words.next() != Some("resnet") {
            return Err(format!("architecture '{architecture}' is not a 'resnet ...' description"));
        }
        let mut config =
            NetConfig { material_head: false, material_utility: 0.0, feature_planes: false, ..self.clone() };
        for word in words {
            let (key, value) =
                word.split_once('=').ok_or_else(|| format!("architecture part '{word}' is not key=value"))?;
            if key == "material_utility" {
                config.material_utility =
                    value.parse().map_err(|_| format!("architecture part '{word}' is not a number"))?;
                continue;
            }
            let value: usize = value.parse().map_err(|_| format!("architecture part '{word}' is not a number"))?;
            match key {
                "blocks" => config.blocks = value,
                "channels" => config.channels = value,
                "se_ratio" => config.se_ratio = value,
                "policy_channels" => config.policy_channels = value,
                "value_hidden" => config.value_hidden = value,
                "material_head" if value <= 1 => config.material_head = value == 1,
                "material_head" => return Err(format!("architecture part '{word}': material_head is 0 or 1")),
                "feature_planes" if value <= 1 => config.feature_planes = value == 1,
                "feature_planes" => return Err(format!("architecture part '{word}': feature_planes is 0 or 1")),
                _ => return Err(format!("architecture part '{word}': unknown field '{key}'")),
            }
        }
        config.validate()?;
        Ok(config)
    }

    /// Checks every field's range.
    ///
    /// # Errors
    /// A message naming the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, v: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&v) { Ok(()) } else { Err(format!("net.{name} = {v} is outside {lo}..={hi}")) }
        };
        check("blocks", self.blocks, 1, 40)?;
        check("channels", self.channels, 8, 512)?;
        check("policy_channels", self.policy_channels, 1, 64)?;
        check("value_hidden", self.value_hidden, 8, 512)?;
        if !(0.0..=1.0).contains(&self.material_utility) {
            return Err(format!("net.material_utility = {} is outside [0, 1]", self.material_utility));
        }
        if self.material_utility > 0.0 && !self.material_head {
            return Err(format!(
                "net.material_utility = {} needs net.material_head = true (it weighs that head's prediction)",
                self.material_utility
            ));
        }
        if self.se_ratio != 0 && (self.se_ratio > self.channels || self.channels % self.se_ratio != 0) {
            return Err(format!(
                "net.se_ratio = {} must be 0 or divide net.channels = {}",
                self.se_ratio, self.channels
            ));
        }
        crate::device::parse_device(&self.device).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_round_trips() {
        let tiny = NetConfig { se_ratio: 4, device: "cpu".to_owned(), ..NetConfig::tiny() };
        let back = NetConfig::default().with_architecture(&tiny.architecture()).expect("reads");
        assert_eq!(back.architecture(), tiny.architecture());
        assert_eq!(back.device, "auto", "placement is kept from the base config");
        assert!(NetConfig::default().with_architecture("mlp blocks=2").is_err());
        assert!(NetConfig::default().with_architecture("resnet blocks=x").is_err());
        assert!(NetConfig::default().with_architecture("resnet depth=3").is_err());
        assert!(NetConfig::default().with_architecture("resnet blocks=0").is_err());
        assert!(NetConfig::default().with_architecture("resnet material_head=2").is_err());
    }

    #[test]
    fn the_material_head_is_part_of_the_architecture() {
        let plain = NetConfig::tiny();
        assert!(!plain.architecture().contains("material"), "{}", plain.architecture());
        let with = NetConfig { material_head: true, ..NetConfig::tiny() };
        assert!(with.architecture().ends_with(" material_head=1"), "{}", with.architecture());
        assert!(NetConfig::tiny().with_architecture(&with.architecture()).expect("reads").material_head);
        // An architecture without the part is a net without the head, whatever the base says.
        assert!(!with.with_architecture(&plain.architecture()).expect("reads").material_head);
    }

    #[test]
    fn the_material_utility_is_part_of_the_architecture_and_needs_the_head() {
        let head = NetConfig { material_head: true, ..NetConfig::tiny() };
        assert!(!head.architecture().contains("utility"), "{}", head.architecture());
        let with = NetConfig { material_utility: 0.3, ..head.clone() };
        assert!(with.architecture().ends_with(" material_head=1 material_utility=0.3"), "{}", with.architecture());
        let back = NetConfig::tiny().with_architecture(&with.architecture()).expect("reads");
        assert_eq!(back.material_utility, 0.3);
        assert_eq!(back.architecture(), with.architecture());
        // Without the part, a net plays its value alone, whatever the base says.
        assert_eq!(with.with_architecture(&head.architecture()).expect("reads").material_utility, 0.0);
        let err = NetConfig { material_utility: 0.5, ..NetConfig::tiny() }.validate().expect_err("no head");
        assert!(err.contains("needs net.material_head"), "{err}");
        let err = NetConfig { material_utility: 1.5, ..head.clone() }.validate().expect_err("range");
        assert!(err.contains("outside [0, 1]"), "{err}");
        assert!(NetConfig { material_utility: f32::NAN, ..head }.validate().is_err());
        assert!(NetConfig::tiny().with_architecture("resnet material_head=1 material_utility=x").is_err());
        assert!(NetConfig::tiny().with_architecture("resnet material_utility=0.5").is_err(), "no head");
    }

    #[test]
    fn feature_planes_are_part_of_the_architecture() {
        let plain = NetConfig::tiny();
        assert!(!plain.architecture().contains("feature"), "{}", plain.architecture());
        let with = NetConfig { feature_planes: true, material_head: true, ..NetConfig::tiny() };
        assert!(with.architecture().ends_with(" material_head=1 feature_planes=1"), "{}", with.architecture());
        let back = NetConfig::tiny().with_architecture(&with.architecture()).expect("reads");
        assert!(back.feature_planes && back.material_head);
        assert!(!with.with_architecture(&plain.architecture()).expect("reads").feature_planes);
        assert!(NetConfig::default().with_architecture("resnet feature_planes=2").is_err());
    }
}
