import ArgumentParser

/// `--data-dir` (`WSX_DATA_DIR`, default `./data`): where `wsx.sqlite` lives. Shared by every
/// command that opens the database.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder of the database and uploads (env WSX_DATA_DIR, default ./data).")
    var dataDirectory: String?

    var resolved: String {
        dataDirectory ?? EnvironmentDefaults().string("WSX_DATA_DIR") ?? AppConfig().dataDirectory
    }
}
