; Inno Setup 6 script: the Windows installer of Laurels & Loot Desktop.
;
; Run packaging/build.py first (it makes dist\lnl-desktop\), then from the repository root:
;   iscc /DAppVersion=X.Y.Z packaging\windows\lnl-desktop.iss
; Without /DAppVersion the version is read from dist\lnl-desktop\lnl-desktop.exe, whose version
; resource build.py generates from lnl_desktop.__version__: the one place the version lives.
; The result is dist\lnl-desktop-VERSION-windows-x64-setup.exe: a per-user install by default (no
; administrator needed; /ALLUSERS or the first page's choice installs for everyone), a Start menu
; entry, an optional desktop icon and .lnl association, and an uninstaller registered with
; Windows (Settings > Apps, or "{app}\unins000.exe").

#define AppName "Laurels & Loot Desktop"
#define AppExe "lnl-desktop.exe"
#define BundleDir AddBackslash(SourcePath) + "..\..\dist\lnl-desktop"
#ifndef AppVersion
  #define AppVersion GetStringFileInfo(BundleDir + "\" + AppExe, "ProductVersion")
#endif
#if AppVersion == ""
  #error No version: run packaging/build.py first, or pass /DAppVersion=...
#endif

[Setup]
; AppId identifies the program to Windows across versions (upgrades, uninstall): never change it.
AppId={{7C1B5E2A-3D94-4F0B-9A61-5E2C8D7F4B13}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Laurels & Loot Desktop contributors
AppComments=A game master's combat table for the tabletop RPG Laurels & Loot
AppCopyright=Code: MIT. Laurels & Loot rules: CC BY 4.0 Bob O'Brien.
VersionInfoVersion={#GetVersionNumbersString(BundleDir + "\" + AppExe)}
VersionInfoProductTextVersion={#AppVersion}
DefaultDirName={autopf}\Laurels and Loot Desktop
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
ChangesAssociations=yes
SetupIconFile=..\..\resources\icons\lnl-desktop.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
OutputDir=..\..\dist
OutputBaseFilename=lnl-desktop-{#AppVersion}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "associate"; Description: "Open .lnl encounter files with {#AppName}"; GroupDescription: "File types:"

[Files]
; The whole one-folder bundle: the program and its _internal\ folder (Python, Qt, resources).
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Run Laurels & Loot fights"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; HKA: the current user's classes for a per-user install, the machine's for an all-users one.
Root: HKA; Subkey: "Software\Classes\.lnl\OpenWithProgids"; ValueType: string; ValueName: "LaurelsAndLoot.Encounter"; ValueData: ""; Flags: uninsdeletevalue; Tasks: associate
Root: HKA; Subkey: "Software\Classes\LaurelsAndLoot.Encounter"; ValueType: string; ValueName: ""; ValueData: "Laurels & Loot encounter"; Flags: uninsdeletekey; Tasks: associate
Root: HKA; Subkey: "Software\Classes\LaurelsAndLoot.Encounter\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"; Tasks: associate
Root: HKA; Subkey: "Software\Classes\LaurelsAndLoot.Encounter\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""; Tasks: associate

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#StringChange(AppName, '&', '&&')}}"; Flags: nowait postinstall skipifsilent
