// The ACORD forms the service fills, as the project's own layouts: for each form its title, the sections
// and fields it prints (field keys follow the `acord_field` names of pipelines/forms, without the form
// prefix), which fields an agency needs to quote (the missing-field report), and the repeating groups
// printed as tables. These are our layouts of the forms' fields, not reproductions of ACORD's artwork.

export interface AcordFieldDef {
  key: string;
  label: string;
  required?: boolean;
  /** Printed across the whole width, several lines high. */
  wide?: boolean;
}

export interface AcordGroupDef {
  /** Field key of the data_table question, e.g. `Driver`. */
  key: string;
  label: string;
  columns: { key: string; label: string }[];
  required?: boolean;
}

export interface AcordSection {
  title: string;
  fields: AcordFieldDef[];
}

export interface AcordFormDef {
  id: string;
  title: string;
  /** personal or commercial lines. */
  lines: 'personal' | 'commercial';
  sections: AcordSection[];
  groups: AcordGroupDef[];
}

const f = (key: string, label: string, opts: Omit<AcordFieldDef, 'key' | 'label'> = {}): AcordFieldDef => ({ key, label, ...opts });
const g = (key: string, label: string, columns: [string, string][], required = false): AcordGroupDef => ({
  key,
  label,
  columns: columns.map(([k, l]) => ({ key: k, label: l })),
  required,
});

/** The columns that say which vehicle a row is, first in every vehicle schedule. */
const vehicleIdentity: [string, string][] = [
  ['ModelYear', 'Year'],
  ['Make', 'Make'],
  ['Model', 'Model'],
  ['VIN', 'VIN'],
];

const priorCarrier = (extra: AcordFieldDef[] = []): AcordSection => ({
  title: 'Prior carrier',
  fields: [
    f('PriorCarrier.CurrentlyInsured', 'Currently insured'),
    f('PriorCarrier.Name', 'Carrier'),
    f('PriorCarrier.PolicyNumber', 'Policy number'),
    f('PriorCarrier.ExpirationDate', 'Expiration date'),
    ...extra,
  ],
});

/** Every form the service can fill, by ACORD number. */
export const ACORD_FORMS: Record<string, AcordFormDef> = {
  '80': {
    id: '80',
    title: 'Homeowner Application',
    lines: 'personal',
    sections: [
      {
        title: 'Applicant',
        fields: [
          f('Applicant.FirstName', 'First name', { required: true }),
          f('Applicant.LastName', 'Last name', { required: true }),
          f('Applicant.DateOfBirth', 'Date of birth'),
          f('Applicant.Phone', 'Phone', { required: true }),
          f('Applicant.Email', 'Email'),
          f('Applicant.MailingSameAsLocation', 'Mailing address same as location'),
          f('Applicant.MailingAddress', 'Mailing address', { wide: true }),
        ],
      },
      {
        title: 'Location and policy',
        fields: [
          f('Location.Address', 'Location address', { required: true, wide: true }),
          f('Policy.EffectiveDate', 'Proposed effective date', { required: true }),
          f('Dwelling.ResidenceType', 'Residence type'),
          f('Dwelling.Occupancy', 'Occupancy'),
          f('Dwelling.PurchaseDate', 'Purchase date'),
          f('Dwelling.PurchasePrice', 'Purchase price'),
        ],
      },
      {
        title: 'Construction',
        fields: [
          f('Construction.YearBuilt', 'Year built', { required: true }),
          f('Construction.ConstructionType', 'Construction type', { required: true }),
          f('Construction.TotalLivingArea', 'Total living area (sq ft)'),
          f('Construction.Stories', 'Stories'),
          f('Construction.FoundationType', 'Foundation'),
          f('Construction.RoofType', 'Roof type'),
          f('Construction.RoofYear', 'Roof year'),
          f('Construction.PrimaryHeatSource', 'Primary heat'),
          f('Construction.SystemUpdates', 'System updates', { wide: true }),
        ],
      },
      {
        title: 'Protection and hazards',
        fields: [
          f('Protection.Devices', 'Protective devices'),
          f('Protection.FireStationDistance', 'Fire station distance'),
          f('Protection.HydrantDistance', 'Hydrant distance'),
          f('Hazards.SwimmingPool', 'Swimming pool'),
          f('Hazards.PoolFenced', 'Pool fenced'),
          f('Hazards.Trampoline', 'Trampoline'),
          f('Hazards.Animals', 'Animals'),
          f('Hazards.AnimalBreeds', 'Breeds'),
        ],
      },
      {
        title: 'Coverage',
        fields: [f('Coverage.DwellingLimit', 'Dwelling limit (A)', { required: true }), f('Coverage.Deductible', 'Deductible')],
      },
      {
        title: 'Mortgagee and losses',
        fields: [f('AdditionalInterest.MortgageeIndicator', 'Mortgagee'), f('LossHistory.AnyLosses', 'Losses in the last 5 years')],
      },
      priorCarrier([f('PriorCarrier.ReasonNoPriorCoverage', 'Reason for no prior coverage', { wide: true })]),
      {
        title: 'Remarks and attestation',
        fields: [f('Remarks.Text', 'Remarks', { wide: true }), f('Applicant.Attestation', 'Applicant attestation', { wide: true })],
      },
    ],
    groups: [
      g('AdditionalInterest.Mortgagee', 'Mortgagees', [
        ['Name', 'Name'],
        ['Address', 'Address'],
        ['LoanNumber', 'Loan number'],
      ]),
      g('LossHistory.Loss', 'Losses', [
        ['Date', 'Date'],
        ['Type', 'Type'],
        ['Amount', 'Amount'],
        ['Description', 'Description'],
      ]),
    ],
  },
  '90': {
    id: '90',
    title: 'Personal Auto Application',
    lines: 'personal',
    sections: [
      {
        title: 'Applicant',
        fields: [
          f('Applicant.FirstName', 'First name', { required: true }),
          f('Applicant.LastName', 'Last name', { required: true }),
          f('Applicant.DateOfBirth', 'Date of birth', { required: true }),
          f('Applicant.Phone', 'Phone', { required: true }),
          f('Applicant.Email', 'Email'),
          f('Applicant.MailingAddress', 'Mailing address', { required: true, wide: true }),
        ],
      },
      {
        title: 'Policy',
        fields: [
          f('Policy.EffectiveDate', 'Proposed effective date', { required: true }),
          f('Policy.GaragingSameAsMailing', 'Garaged at mailing address'),
          f('Policy.GaragingAddress', 'Garaging address', { wide: true }),
        ],
      },
      {
        title: 'Coverage',
        fields: [
          f('Coverage.LiabilityLimits', 'Liability limits', { required: true }),
          f('Coverage.PhysicalDamageIndicator', 'Comprehensive and collision'),
          f('Coverage.CollisionDeductible', 'Deductible'),
          f('Coverage.OptionalCoverages', 'Optional coverages', { wide: true }),
        ],
      },
      {
        title: 'Driver history and lienholders',
        fields: [
          f('DriverHistory.AnyIncidents', 'Accidents or violations (5 years)'),
          f('AdditionalInterest.LienholderIndicator', 'Vehicle financed or leased'),
          f('AdditionalInterest.NameAndAddress', 'Lienholders', { wide: true }),
        ],
      },
      priorCarrier([f('PriorCarrier.LiabilityLimits', 'Prior liability limits'), f('PriorCarrier.YearsWithCarrier', 'Years with carrier')]),
      {
        title: 'Remarks and attestation',
        fields: [
          f('Attachments.PriorDeclarations', 'Prior declarations attached'),
          f('Remarks.Text', 'Remarks', { wide: true }),
          f('Applicant.Attestation', 'Applicant attestation', { wide: true }),
        ],
      },
    ],
    groups: [
      g(
        'Driver',
        'Drivers',
        [
          ['FirstName', 'First name'],
          ['LastName', 'Last name'],
          ['DateOfBirth', 'Born'],
          ['Relationship', 'Relationship'],
          ['MaritalStatus', 'Marital'],
          ['LicenseNumber', 'Licence'],
          ['LicenseState', 'State'],
          ['DateLicensed', 'Licensed'],
        ],
        true,
      ),
      g('Vehicle', 'Vehicles', [...vehicleIdentity, ['Use', 'Use'], ['AnnualMileage', 'Miles/yr'], ['OwnershipType', 'Ownership']], true),
      g('DriverHistory.Incident', 'Accidents and violations', [
        ['DriverName', 'Driver'],
        ['Date', 'Date'],
        ['Type', 'Type'],
        ['Description', 'Description'],
      ]),
    ],
  },
  '125': {
    id: '125',
    title: 'Commercial Insurance Application',
    lines: 'commercial',
    sections: [
      {
        title: 'Applicant',
        fields: [
          f('NamedInsured.FullName', 'Named insured', { required: true }),
          f('NamedInsured.BusinessName', 'Business name'),
          f('NamedInsured.EntityType', 'Entity type'),
          f('NamedInsured.FEIN', 'FEIN'),
          f('NamedInsured.BusinessType', 'Business type'),
          f('NamedInsured.YearsInBusiness', 'Years in business'),
          f('NamedInsured.EmployeeCount', 'Employees'),
          f('NamedInsured.AnnualRevenue', 'Annual revenue'),
          f('NamedInsured.NatureOfBusiness', 'Nature of business', { wide: true }),
          f('NamedInsured.MailingAddress', 'Mailing address', { required: true, wide: true }),
        ],
      },
      {
        title: 'Contact',
        fields: [
          f('Contact.FullName', 'Contact name'),
          f('Contact.Phone', 'Phone', { required: true }),
          f('Contact.Email', 'Email'),
          f('Contact.PreferredMethod', 'Preferred contact'),
          f('Contact.PreferredTime', 'Best time'),
        ],
      },
      {
        title: 'Policy',
        fields: [
          f('Policy.EffectiveDate', 'Proposed effective date', { required: true }),
          f('Policy.TransactionType', 'Transaction'),
          f('Policy.LinesOfBusiness', 'Lines of business', { required: true, wide: true }),
          f('Location.OwnershipType', 'Premises owned or rented'),
          f('Exposure.VehicleCount', 'Vehicles'),
          f('Exposure.UmbrellaLimit', 'Umbrella limit'),
        ],
      },
      priorCarrier([
        f('PriorCarrier.Premium', 'Premium'),
        f('PriorCarrier.DeclinedCancelledNonRenewed', 'Declined, cancelled or non-renewed (3 years)'),
        f('PriorCarrier.DeclinedReason', 'Explanation', { wide: true }),
      ]),
      {
        title: 'Loss history',
        fields: [f('LossHistory.AnyLosses', 'Losses in the last 5 years'), f('LossHistory.Description', 'Loss description', { wide: true })],
      },
      {
        title: 'Attachments and remarks',
        fields: [
          f('Attachments.DeclarationsPages', 'Declarations pages'),
          f('Attachments.LossRuns', 'Loss runs'),
          f('Remarks.Text', 'Remarks', { wide: true }),
        ],
      },
    ],
    groups: [
      g('LossHistory.Loss', 'Losses', [
        ['Date', 'Date'],
        ['Type', 'Type'],
        ['Amount', 'Amount'],
        ['Status', 'Status'],
        ['Description', 'Description'],
      ]),
    ],
  },
  '126': {
    id: '126',
    title: 'Commercial General Liability Section',
    lines: 'commercial',
    sections: [
      {
        title: 'Hazards and exposures',
        fields: [f('Hazard.Units', 'Units'), f('Hazard.PoolFenced', 'Pool fenced'), f('Hazard.Amenities', 'Amenities', { wide: true })],
      },
      { title: 'Coverage', fields: [f('Coverage.GeneralAggregate', 'General aggregate'), f('Coverage.EachOccurrence', 'Each occurrence')] },
    ],
    groups: [],
  },
  '127': {
    id: '127',
    title: 'Business Auto Section',
    lines: 'commercial',
    sections: [
      { title: 'Coverage', fields: [f('Coverage.LiabilityLimit', 'Liability limit', { required: true }), f('Coverage.Radius', 'Radius of operation')] },
    ],
    groups: [
      g(
        'Driver',
        'Drivers',
        [
          ['FullName', 'Name'],
          ['DateOfBirth', 'Born'],
          ['LicenseNumber', 'Licence'],
          ['LicenseState', 'State'],
        ],
        true,
      ),
      g('Vehicle', 'Vehicles', [...vehicleIdentity, ['CostNew', 'Cost new']], true),
    ],
  },
  '137': {
    id: '137',
    title: 'Commercial Auto Coverages (State Supplement)',
    lines: 'commercial',
    sections: [
      {
        title: 'State coverages',
        fields: [
          f('State.Code', 'State', { required: true }),
          f('Coverage.UninsuredMotorist', 'Uninsured motorist'),
          f('Coverage.MedicalPayments', 'Medical payments'),
          f('Coverage.PersonalInjuryProtection', 'PIP'),
        ],
      },
    ],
    groups: [],
  },
  '140': {
    id: '140',
    title: 'Property Section',
    lines: 'commercial',
    sections: [
      {
        title: 'Location and building',
        fields: [
          f('Location.Address', 'Location address', { required: true, wide: true }),
          f('Location.BuildingCount', 'Buildings'),
          f('Building.YearBuilt', 'Year built', { required: true }),
          f('Building.ConstructionType', 'Construction', { required: true }),
          f('Building.Stories', 'Stories'),
          f('Building.TotalArea', 'Total area (sq ft)'),
          f('Building.RoofType', 'Roof type'),
          f('Building.RoofYear', 'Roof year'),
        ],
      },
      {
        title: 'Occupancy',
        fields: [
          f('Occupancy.Description', 'Occupancy', { wide: true }),
          f('Occupancy.OccupiedPercent', 'Occupied %'),
          f('Occupancy.ShortTermRentalPercent', 'Short-term rental %'),
          f('Occupancy.LeaseTerm', 'Lease term'),
          f('Occupancy.TenantScreening', 'Tenant screening'),
          f('Occupancy.Management', 'Management'),
          f('Occupancy.ManagementCompany', 'Management company'),
          f('Occupancy.CommercialArea', 'Commercial area'),
          f('Occupancy.CommercialTenants', 'Commercial tenants', { wide: true }),
        ],
      },
      {
        title: 'Protection and coverage',
        fields: [
          f('Protection.Sprinklered', 'Sprinklered'),
          f('Protection.SprinklerPercent', 'Sprinkler %'),
          f('Protection.Alarms', 'Alarms'),
          f('Coverage.BuildingLimit', 'Building limit', { required: true }),
          f('Attachments.RentRoll', 'Rent roll'),
        ],
      },
    ],
    groups: [
      g('Occupancy.UnitMix', 'Unit mix', [
        ['UnitType', 'Unit type'],
        ['Count', 'Count'],
        ['MonthlyRent', 'Monthly rent'],
      ]),
      g('Building.Update', 'System updates', [
        ['System', 'System'],
        ['Year', 'Year'],
      ]),
    ],
  },
};

/** The ACORD form numbers the service fills, in the order they appear in an archive. */
export const ACORD_FORM_IDS = ['80', '90', '125', '126', '127', '137', '140'] as const;

/** `ACORD90.Driver.FirstName` → { formId: '90', key: 'Driver.FirstName' }; null when not an ACORD field name. */
export function splitAcordField(name: string): { formId: string; key: string } | null {
  const m = /^ACORD(\d{2,3})\.(.+)$/.exec(name);
  return m ? { formId: m[1], key: m[2] } : null;
}
