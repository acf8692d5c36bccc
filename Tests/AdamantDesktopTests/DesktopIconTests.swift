import Testing

@testable import AdamantDesktop

@Suite struct DesktopIconTests {
    @Test func theUsersDataComesFirstAndAPNGBeforeAnSVG() {
        let installed: Set = [
            "/home/u/.local/share/icons/hicolor/scalable/apps/adm-push.svg",
            "/usr/share/icons/hicolor/scalable/apps/adm-push.svg",
            "/opt/share/icons/hicolor/128x128/apps/adm-push.png",
        ]
        let environment = ["HOME": "/home/u", "XDG_DATA_DIRS": "/opt/share:/usr/share"]
        #expect(
            DesktopIcon.path(environment: environment, exists: installed.contains)
                == "/opt/share/icons/hicolor/128x128/apps/adm-push.png")
        let noPNG = installed.filter { !$0.hasSuffix(".png") }
        #expect(
            DesktopIcon.path(environment: environment, exists: noPNG.contains)
                == "/home/u/.local/share/icons/hicolor/scalable/apps/adm-push.svg")
    }

    @Test func withoutXDGDataDirsTheDefaultsAreLookedIn() {
        let installed: Set = ["/usr/local/share/icons/hicolor/scalable/apps/adm-push.svg"]
        #expect(DesktopIcon.path(environment: ["XDG_DATA_DIRS": ""], exists: installed.contains) == installed.first)
        #expect(DesktopIcon.path(environment: [:], exists: { _ in false }) == nil)
        // A relative directory is never looked in: it would depend on where the process runs.
        #expect(
            DesktopIcon.path(environment: ["XDG_DATA_DIRS": "share", "XDG_DATA_HOME": "data"], exists: { _ in true })
                == nil)
    }
}
